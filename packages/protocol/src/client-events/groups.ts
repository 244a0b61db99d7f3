/** `user_group` client events, in the reference's shapes (`GET /events`). */
import type { UserGroup } from '../groups.js';
import type { QueueEvent } from '../queue.js';

/**
 * Marks the edge strips: `group_deactivated` on news about a deactivated
 * group, `reactivated_group` on a reactivation (the group anew, for clients
 * that do not know deactivated groups).
 */
type Marks = { group_deactivated?: true; reactivated_group?: UserGroup };

export type MembersOp = 'add_members' | 'remove_members';
export type SubgroupsOp = 'add_subgroups' | 'remove_subgroups';

export type UserGroupEvent = Marks &
  (
    | { type: 'user_group'; op: 'add'; group: UserGroup }
    | { type: 'user_group'; op: 'update'; group_id: number; data: Record<string, unknown> }
    | { type: 'user_group'; op: MembersOp; group_id: number; user_ids: number[] }
    | { type: 'user_group'; op: SubgroupsOp; group_id: number; direct_subgroup_ids: number[] }
  );

export const groupAdded = (group: UserGroup): UserGroupEvent => ({ type: 'user_group', op: 'add', group });
export const groupUpdated = (group_id: number, data: Record<string, unknown>): UserGroupEvent => ({
  type: 'user_group',
  op: 'update',
  group_id,
  data,
});
export const groupMembers = (op: MembersOp, group_id: number, user_ids: number[]): UserGroupEvent => ({
  type: 'user_group',
  op,
  group_id,
  user_ids,
});
export const groupSubgroups = (op: SubgroupsOp, group_id: number, direct_subgroup_ids: number[]): UserGroupEvent => ({
  type: 'user_group',
  op,
  group_id,
  direct_subgroup_ids,
});
/** Every `user_group` event is built by the constructors above. */
export const isUserGroup = (event: QueueEvent): event is UserGroupEvent => event.type === 'user_group';
