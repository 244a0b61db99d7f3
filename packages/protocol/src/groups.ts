import type { ProtocolOf } from './contract.js';
import type { ChannelPermission } from './channel.js';
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
// The system groups of each role: `systemGroupsOf` in permissions.ts, with the other role rules.

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

/** The permissions every user group has, each a group-setting value. */
export const USER_GROUP_PERMISSIONS = [
  'can_add_members_group',
  'can_join_group',
  'can_leave_group',
  'can_manage_group',
  'can_mention_group',
  'can_remove_members_group',
] as const;
export type UserGroupPermission = (typeof USER_GROUP_PERMISSIONS)[number];

/** A user group as the API shows it: `members` are its direct members, active users only. */
export interface UserGroup extends Record<UserGroupPermission, GroupSetting> {
  id: number;
  name: string;
  description: string;
  date_created: number | null;
  creator_id: number | null;
  members: number[];
  direct_subgroup_ids: number[];
  is_system_group: boolean;
  deactivated: boolean;
}

/** An update of a group-setting value: `old`, when given, must be the current value. */
export interface GroupSettingChange {
  new: GroupSetting;
  old?: GroupSetting;
}

export type GroupReplies = {
  'realm.userGroups': UserGroup[];
  'realm.createUserGroup': { group_id: number };
  'realm.updateUserGroup': null;
  'realm.changeUserGroupMembers': null;
  'realm.deactivateUserGroup': null;
  'realm.userGroupMembers': number[];
  'realm.isUserGroupMember': boolean;
  'realm.userGroupSubgroups': number[];
  /** The values as given, once all are known to be usable. */
  'realm.checkGroupSettings': GroupSetting[];
};

/** The RealmActor's user-group commands; `actor_id` is the user whose permissions are checked. */
export type GroupCommand =
  | { type: 'realm.userGroups'; include_deactivated: boolean }
  | {
      type: 'realm.createUserGroup';
      actor_id: number;
      name: string;
      description: string;
      members: number[];
      subgroups: number[];
      settings: Partial<Record<UserGroupPermission, GroupSetting>>;
    }
  | {
      type: 'realm.updateUserGroup';
      actor_id: number;
      group_id: number;
      name?: string;
      description?: string;
      settings: Partial<Record<UserGroupPermission, GroupSettingChange>>;
      /** Only false does anything: it reactivates the group. */
      deactivated?: boolean;
    }
  | {
      type: 'realm.changeUserGroupMembers';
      actor_id: number;
      group_id: number;
      add: number[];
      delete: number[];
      add_subgroups: number[];
      delete_subgroups: number[];
    }
  | { type: 'realm.deactivateUserGroup'; actor_id: number; group_id: number }
  /** Replies the member ids: direct ones, or through subgroups too. */
  | { type: 'realm.userGroupMembers'; group_id: number; direct_only: boolean }
  | { type: 'realm.isUserGroupMember'; group_id: number; user_id: number; direct_only: boolean }
  | { type: 'realm.userGroupSubgroups'; group_id: number; direct_only: boolean }
  /**
   * Refuses values naming unknown or deactivated groups, or unknown users (for channel permissions);
   * `names`, one per value, adds the rules of each channel permission (`role:internet`, `role:everyone`).
   */
  | { type: 'realm.checkGroupSettings'; values: GroupSetting[]; names?: ChannelPermission[] };

export type GroupProtocol = ProtocolOf<GroupCommand, GroupReplies>;
