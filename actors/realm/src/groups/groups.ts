import {
  ChatError,
  FIRST_USER_GROUP_ID,
  groupAdded,
  groupUpdated,
  sameGroupSetting,
  USER_GROUP_PERMISSIONS,
  type GroupCommand,
  type UserGroupEvent,
} from '@chat/protocol';
import type { ActorContext, Decision } from '@chat/runtime';
import { actorOf, findGroup, groupToChange, saved } from './access.js';
import { changeMembers } from './members.js';
import {
  allMembers,
  directMembers,
  directSubgroups,
  groupJson,
  holds,
  listGroups,
  userGroupsOf,
  withSubgroups,
  type StoredGroup,
} from './model.js';
import { activeUsers, checkGroupSetting, initialSettings, objectionsTo, usableGroup } from './settings.js';
import type { RealmEvent, RealmState } from '../state.js';
import type { RealmHandlers } from '../state.js';
import type { GroupProtocol } from '@chat/protocol';

type Ctx = ActorContext<RealmState>;
const bad = (msg: string) => new ChatError('BAD_REQUEST', msg);
const MAX_NAME_LENGTH = 100;
const RESERVED_PREFIXES = ['@', 'role:', 'user:', 'stream:', 'channel:'];

export function checkName(state: RealmState, name: string, except?: number): string {
  if (name.trim() === '') throw bad("User group name can't be empty!");
  if ([...name].length > MAX_NAME_LENGTH) throw bad(`User group name cannot exceed ${MAX_NAME_LENGTH} characters.`);
  const prefix = RESERVED_PREFIXES.find((p) => name.startsWith(p));
  if (prefix) throw bad(`User group name cannot start with '${prefix}'.`);
  // Names are unique regardless of case, so that a mention names one group.
  const taken = Object.values(userGroupsOf(state)).some(
    (g) => g.id !== except && g.name.toLowerCase() === name.toLowerCase(),
  );
  if (taken) throw bad(`User group '${name}' already exists.`);
  return name;
}

function create(
  ctx: Ctx,
  cmd: Extract<GroupCommand, { type: 'realm.createUserGroup' }>,
): Decision<RealmEvent, { group_id: number }> {
  const state = ctx.state;
  const actor = actorOf(state, cmd.actor_id);
  if (!holds(state, state.settings.can_create_groups, actor)) throw bad('Insufficient permission');
  const name = checkName(state, cmd.name);
  const members = activeUsers(state, cmd.members);
  const subgroups = [...new Set(cmd.subgroups)].sort((a, b) => a - b);
  for (const id of subgroups) usableGroup(state, id, () => bad(`Invalid user group ID: ${id}`));
  const ids = Object.keys(userGroupsOf(state)).map(Number);
  const group: StoredGroup = {
    id: Math.max(FIRST_USER_GROUP_ID - 1, ...ids) + 1,
    name,
    description: cmd.description,
    date_created: Math.floor(ctx.now / 1000),
    creator_id: actor.id,
    members,
    subgroups,
    deactivated: false,
    settings: initialSettings(state, cmd.settings, actor),
  };
  const after = { ...state, userGroups: { ...userGroupsOf(state), [group.id]: group } };
  return saved(state, group, [groupAdded(groupJson(after, group.id))], {
    group_id: group.id,
  });
}

function update(state: RealmState, cmd: Extract<GroupCommand, { type: 'realm.updateUserGroup' }>) {
  const actor = actorOf(state, cmd.actor_id);
  const changing = Object.keys(cmd.settings).length > 0 || cmd.deactivated !== undefined;
  if (cmd.name === undefined && cmd.description === undefined && !changing) throw bad('No new data supplied');
  const group = { ...groupToChange(state, actor, cmd.group_id, 'can_manage_group', true) };
  const data: Record<string, unknown> = {};
  if (cmd.name !== undefined && cmd.name !== group.name) data.name = group.name = checkName(state, cmd.name, group.id);
  if (cmd.description !== undefined && cmd.description !== group.description) {
    data.description = group.description = cmd.description;
  }
  group.settings = { ...group.settings };
  for (const name of USER_GROUP_PERMISSIONS) {
    const change = cmd.settings[name];
    if (!change) continue;
    if (change.old !== undefined && !sameGroupSetting(change.old, group.settings[name])) {
      throw bad("'old' value does not match the expected value.");
    }
    const value = checkGroupSetting(state, change.new, name);
    if (!sameGroupSetting(value, group.settings[name])) data[name] = group.settings[name] = value;
  }
  const events: UserGroupEvent[] = [];
  if (cmd.deactivated === false && group.deactivated) {
    group.deactivated = false;
    const after = { ...state, userGroups: { ...userGroupsOf(state), [group.id]: group } };
    // Clients that do not know deactivated groups see the group come back as new.
    events.push({ ...groupUpdated(group.id, { deactivated: false }), reactivated_group: groupJson(after, group.id) });
  }
  if (Object.keys(data).length > 0) events.push(groupUpdated(group.id, data));
  return saved(state, group, events);
}

function deactivate(state: RealmState, cmd: Extract<GroupCommand, { type: 'realm.deactivateUserGroup' }>) {
  const actor = actorOf(state, cmd.actor_id);
  const group = groupToChange(state, actor, cmd.group_id, 'can_manage_group');
  const objections = objectionsTo(state, group.id);
  if (objections.length > 0) {
    throw new ChatError('CANNOT_DEACTIVATE_GROUP_IN_USE', 'Cannot deactivate user group in use.', { objections });
  }
  return saved(state, { ...group, deactivated: true }, [groupUpdated(group.id, { deactivated: true })]);
}

export const groupHandlers: RealmHandlers<GroupProtocol> = {
  'realm.userGroups': ({ state }, command) => {
    return { reply: listGroups(state, command.include_deactivated) };
  },
  'realm.createUserGroup': (ctx, command) => {
    return create(ctx, command);
  },
  'realm.updateUserGroup': ({ state }, command) => {
    return update(state, command);
  },
  'realm.changeUserGroupMembers': ({ state }, command) => {
    return changeMembers(state, command);
  },
  'realm.deactivateUserGroup': ({ state }, command) => {
    return deactivate(state, command);
  },
  'realm.userGroupMembers': ({ state }, command) => {
    const id = findGroup(state, command.group_id);
    return { reply: command.direct_only ? directMembers(state, id) : allMembers(state, id) };
  },
  'realm.isUserGroupMember': ({ state }, command) => {
    const id = findGroup(state, command.group_id);
    if (!state.accounts[command.user_id]) throw bad('No such user');
    const members = command.direct_only ? directMembers(state, id) : allMembers(state, id);
    return { reply: members.includes(command.user_id) };
  },
  'realm.userGroupSubgroups': ({ state }, command) => {
    const id = findGroup(state, command.group_id);
    const below = command.direct_only ? directSubgroups(state, id) : [...withSubgroups(state, [id])];
    return { reply: below.filter((g) => g !== id).sort((a, b) => a - b) };
  },
  'realm.checkGroupSettings': ({ state }, command) => {
    return { reply: command.values.map((value, i) => checkGroupSetting(state, value, command.names?.[i])) };
  },
};
