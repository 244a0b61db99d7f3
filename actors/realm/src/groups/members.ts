import { ChatError, groupMembers, groupSubgroups, type GroupCommand, type UserGroupEvent } from '@chat/protocol';
import type { Decision } from '@chat/runtime';
import { actorOf, groupToChange, saved } from './access.js';
import { allMembers, userGroupsOf, withSupergroups, type StoredGroup } from './model.js';
import { channelsNaming, concerned, knowledgeTells } from '../channel-knowledge.js';
import { activeUsers, usableGroup, wouldCycle } from './settings.js';
import type { Account, RealmEvent, RealmState } from '../state.js';

type Change = Extract<GroupCommand, { type: 'realm.changeUserGroupMembers' }>;
const bad = (msg: string) => new ChatError('BAD_REQUEST', msg);

const onlySelf = (ids: number[], actor: Account) => ids.length > 0 && ids.every((id) => id === actor.id);

/**
 * Checks every part of the change, each against the setting that governs it
 * (joining or leaving oneself, adding or removing others), before any of it
 * is applied: a refused part refuses the whole request.
 */
function permitted(state: RealmState, actor: Account, cmd: Change): StoredGroup {
  const check = (permission: Parameters<typeof groupToChange>[3]) =>
    groupToChange(state, actor, cmd.group_id, permission, true);
  let group: StoredGroup | undefined;
  if (cmd.add.length > 0) group = check(onlySelf(cmd.add, actor) ? 'can_join_group' : 'can_add_members_group');
  if (cmd.delete.length > 0)
    group = check(onlySelf(cmd.delete, actor) ? 'can_leave_group' : 'can_remove_members_group');
  if (cmd.add_subgroups.length > 0) group = check('can_add_members_group');
  if (cmd.delete_subgroups.length > 0) group = check('can_remove_members_group');
  return group ?? check('can_manage_group');
}

function subgroupsToAdd(state: RealmState, group: StoredGroup, ids: number[]): number[] {
  const adding = [...new Set(ids)].sort((a, b) => a - b);
  for (const id of adding) usableGroup(state, id, () => bad(`Invalid user group ID: ${id}`));
  for (const id of adding) {
    if (group.subgroups.includes(id)) throw bad(`User group ${id} is already a subgroup of this group.`);
  }
  if (wouldCycle(state, group.id, adding)) {
    throw bad(`User group ${group.id} is already a subgroup of one of the passed subgroups.`);
  }
  return adding;
}

export function changeMembers(state: RealmState, cmd: Change): Decision<RealmEvent, null> {
  const actor = actorOf(state, cmd.actor_id);
  const before = permitted(state, actor, cmd);
  const group: StoredGroup = { ...before, members: [...before.members], subgroups: [...before.subgroups] };
  const events: UserGroupEvent[] = [];

  const adding = activeUsers(state, cmd.add);
  for (const id of adding) {
    if (group.members.includes(id)) throw bad(`User ${id} is already a member of this group`);
  }
  const removing = activeUsers(state, cmd.delete);
  for (const id of removing) {
    if (!group.members.includes(id) || adding.includes(id)) throw bad(`There is no member '${id}' in this user group`);
  }
  const addingGroups = subgroupsToAdd(state, group, cmd.add_subgroups);
  const removingGroups = [...new Set(cmd.delete_subgroups)].sort((a, b) => a - b);
  for (const id of removingGroups) {
    usableGroup(state, id, () => bad(`Invalid user group ID: ${id}`));
    if (!group.subgroups.includes(id)) throw bad(`User group ${id} is not a subgroup of this group.`);
  }

  if (adding.length > 0) {
    group.members.push(...adding);
    events.push(groupMembers('add_members', group.id, adding));
  }
  if (removing.length > 0) {
    group.members = group.members.filter((id) => !removing.includes(id));
    events.push(groupMembers('remove_members', group.id, removing));
  }
  if (addingGroups.length > 0) {
    group.subgroups.push(...addingGroups);
    events.push(groupSubgroups('add_subgroups', group.id, addingGroups));
  }
  if (removingGroups.length > 0) {
    group.subgroups = group.subgroups.filter((id) => !removingGroups.includes(id));
    events.push(groupSubgroups('remove_subgroups', group.id, removingGroups));
  }
  if (events.length === 0) return { reply: null };
  // Who joined or left the group, directly or through a subgroup, may now know of other private channels.
  const after: RealmState = { ...state, userGroups: { ...userGroupsOf(state), [group.id]: group } };
  const moved = [
    ...adding,
    ...removing,
    ...addingGroups.flatMap((id) => allMembers(after, id)),
    ...removingGroups.flatMap((id) => allMembers(state, id)),
  ];
  const channels = channelsNaming(state, withSupergroups(state, group.id));
  return { ...saved(state, group, events), tells: knowledgeTells(state, after, concerned(state, moved), channels) };
}
