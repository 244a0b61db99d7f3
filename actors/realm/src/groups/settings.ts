import {
  CHANNEL_PERMISSIONS,
  CHANNEL_PERMISSIONS_NOT_FOR_EVERYONE,
  ChatError,
  GROUP_PERMISSIONS_NOT_FOR_GUESTS,
  SYSTEM_GROUPS,
  USER_GROUP_PERMISSIONS,
  type ChannelPermission,
  type GroupSetting,
  type UserGroupPermission,
} from '@chat/protocol';

/** The settings that may not name `role:everyone`: user-group and channel permissions alike. */
const NOT_FOR_EVERYONE: readonly string[] = [
  ...GROUP_PERMISSIONS_NOT_FOR_GUESTS,
  ...CHANNEL_PERMISSIONS_NOT_FOR_EVERYONE,
];
import { groupExists, userGroupsOf, withSubgroups, type StoredGroup } from './model.js';
import type { Account, RealmState } from '../state.js';

const bad = (msg: string) => new ChatError('BAD_REQUEST', msg);

/** A group that may be named as a subgroup or in a setting: it exists and is not deactivated. */
export function usableGroup(state: RealmState, id: number, unknown: () => ChatError): void {
  if (!groupExists(state, id)) throw unknown();
  if (userGroupsOf(state)[id]?.deactivated) throw bad('User group is deactivated.');
}

/** Active users of the realm, else `Invalid user ID: N` as the original answers. */
export function activeUsers(state: RealmState, ids: number[]): number[] {
  for (const id of ids) if (!state.accounts[id]?.isActive) throw bad(`Invalid user ID: ${id}`);
  return [...new Set(ids)].sort((a, b) => a - b);
}

/**
 * A group-setting value checked against the realm and put in canonical form:
 * an anonymous group of one subgroup and no members is that group's id.
 * `name` adds the rules of one user-group or channel setting.
 */
export function checkGroupSetting(
  state: RealmState,
  value: GroupSetting,
  name?: UserGroupPermission | ChannelPermission,
): GroupSetting {
  if (typeof value !== 'number') {
    const members = activeUsers(state, value.direct_members);
    const subgroups = [...new Set(value.direct_subgroups)].sort((a, b) => a - b);
    for (const id of subgroups) usableGroup(state, id, () => bad(`Invalid user group ID: ${id}`));
    if (members.length > 0 || subgroups.length !== 1) return { direct_members: members, direct_subgroups: subgroups };
    value = subgroups[0]!;
  }
  usableGroup(state, value, () => bad('Invalid user group'));
  if (name && value === SYSTEM_GROUPS['role:internet']) {
    throw bad(`'${name}' setting cannot be set to 'role:internet' group.`);
  }
  if (name && NOT_FOR_EVERYONE.includes(name) && value === SYSTEM_GROUPS['role:everyone']) {
    throw bad(`'${name}' setting cannot be set to 'role:everyone' group.`);
  }
  return value;
}

/** A new group's settings: the caller's values, else the original's defaults (the creator manages it). */
export function initialSettings(
  state: RealmState,
  given: Partial<Record<UserGroupPermission, GroupSetting>>,
  creator: Account,
): StoredGroup['settings'] {
  const creatorOnly: GroupSetting = { direct_members: [creator.id], direct_subgroups: [] };
  const defaults: StoredGroup['settings'] = {
    can_add_members_group: creatorOnly,
    can_join_group: SYSTEM_GROUPS['role:nobody'],
    can_leave_group: SYSTEM_GROUPS['role:everyone'],
    can_manage_group: creatorOnly,
    can_mention_group: SYSTEM_GROUPS['role:everyone'],
    can_remove_members_group: SYSTEM_GROUPS['role:nobody'],
  };
  for (const name of USER_GROUP_PERMISSIONS) {
    const value = given[name];
    if (value !== undefined) defaults[name] = checkGroupSetting(state, value, name);
  }
  return defaults;
}

const names = (value: GroupSetting): number[] => (typeof value === 'number' ? [value] : value.direct_subgroups);

/** Where a group is still in use, in the shape of the original's `objections`. */
export function objectionsTo(state: RealmState, id: number): Array<Record<string, unknown>> {
  const objections: Array<Record<string, unknown>> = [];
  const active = Object.values(userGroupsOf(state)).filter((g) => !g.deactivated);
  const supergroups = active.filter((g) => g.subgroups.includes(id)).map((g) => g.id);
  if (supergroups.length > 0) objections.push({ type: 'subgroup', supergroup_ids: supergroups });
  // Channels not archived, from the directory's copy of their settings (the original's order: channels, groups, realm).
  for (const channel of Object.values(state.channels)) {
    if (channel.is_archived || !channel.permissions) continue;
    const settings = CHANNEL_PERMISSIONS.filter((name) => names(channel.permissions![name]).includes(id));
    if (settings.length > 0) objections.push({ type: 'channel', channel_id: channel.channel_id, settings });
  }
  for (const g of active) {
    const settings = USER_GROUP_PERMISSIONS.filter((name) => names(g.settings[name]).includes(id));
    if (settings.length > 0) objections.push({ type: 'user_group', group_id: g.id, settings });
  }
  const realm = Object.entries(state.settings)
    .filter(([name, value]) => name.endsWith('_group') && names(value as GroupSetting).includes(id))
    .map(([name]) => name);
  if (realm.length > 0) objections.push({ type: 'realm', settings: realm });
  return objections;
}

/** Whether adding `candidates` below `groupId` would make a group its own subgroup. */
export const wouldCycle = (state: RealmState, groupId: number, candidates: number[]) =>
  withSubgroups(state, candidates).has(groupId);
