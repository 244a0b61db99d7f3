import { ROLES, type Role } from './realm.js';

/**
 * Permissions are group-setting values: a group id, or an anonymous group of
 * direct members and subgroups. Every realm has the system groups below, with
 * the same ids in every realm; user-defined groups get ids after them.
 */
export type GroupSetting = number | { direct_members: number[]; direct_subgroups: number[] };

export const SYSTEM_GROUPS = {
  'role:internet': 1,
  'role:everyone': 2,
  'role:members': 3,
  'role:fullmembers': 4,
  'role:moderators': 5,
  'role:administrators': 6,
  'role:owners': 7,
  'role:nobody': 8,
} as const;
export type SystemGroupName = keyof typeof SYSTEM_GROUPS;
export const FIRST_USER_GROUP_ID = 9;

/** The system groups a role belongs to, each implying the wider ones. */
export function systemGroupsOf(role: Role): number[] {
  const groups: number[] = [SYSTEM_GROUPS['role:internet'], SYSTEM_GROUPS['role:everyone']];
  if (role === ROLES.guest) return groups;
  groups.push(SYSTEM_GROUPS['role:members'], SYSTEM_GROUPS['role:fullmembers']);
  if (role <= ROLES.moderator) groups.push(SYSTEM_GROUPS['role:moderators']);
  if (role <= ROLES.administrator) groups.push(SYSTEM_GROUPS['role:administrators']);
  if (role <= ROLES.owner) groups.push(SYSTEM_GROUPS['role:owners']);
  return groups;
}

/** Someone whose permissions are being checked: an id and every group that contains them. */
export interface Member {
  user_id: number;
  groups: number[];
}

export function inGroupSetting(setting: GroupSetting, who: Member): boolean {
  if (typeof setting === 'number') return who.groups.includes(setting);
  return setting.direct_members.includes(who.user_id) || setting.direct_subgroups.some((id) => who.groups.includes(id));
}

export const sameGroupSetting = (a: GroupSetting, b: GroupSetting): boolean =>
  typeof a === 'number' || typeof b === 'number'
    ? a === b
    : sameIds(a.direct_members, b.direct_members) && sameIds(a.direct_subgroups, b.direct_subgroups);

const sameIds = (a: number[], b: number[]) =>
  a.length === b.length && [...a].sort().every((id, i) => id === [...b].sort()[i]);
