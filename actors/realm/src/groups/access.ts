import { ChatError, type UserGroupEvent, type UserGroupPermission } from '@chat/protocol';
import { toEveryone } from '../broadcast.js';
import { groupExists, holds, isSystemGroup, userGroupsOf, type StoredGroup } from './model.js';
import type { Account, RealmState } from '../state.js';

const bad = (msg: string) => new ChatError('BAD_REQUEST', msg);
const invalidGroup = () => bad('Invalid user group');

export function actorOf(state: RealmState, id: number): Account {
  const account = state.accounts[id];
  if (!account?.isActive) throw new ChatError('BAD_REQUEST', 'Account is deactivated');
  return account;
}

/** An existing group; deactivated ones only where the original allows them. */
export function findGroup(state: RealmState, id: number, allowDeactivated = false): number {
  if (!groupExists(state, id)) throw invalidGroup();
  if (!allowDeactivated && userGroupsOf(state)[id]?.deactivated) throw bad('User group is deactivated.');
  return id;
}

/**
 * A user-defined group the actor may change: the realm's
 * `can_manage_all_groups` and the group's `can_manage_group` may do
 * anything; otherwise the one setting that governs the change must include
 * the actor. Administrators get no exception of their own (the original's
 * `access_user_group_for_update`); by default only owners manage all groups.
 */
export function groupToChange(
  state: RealmState,
  actor: Account,
  id: number,
  permission: UserGroupPermission,
  allowDeactivated = false,
): StoredGroup {
  findGroup(state, id, allowDeactivated);
  if (isSystemGroup(id)) throw bad('Insufficient permission');
  const group = userGroupsOf(state)[id]!;
  const allowed =
    holds(state, state.settings.can_manage_all_groups, actor) ||
    holds(state, group.settings.can_manage_group, actor, 'can_manage_group') ||
    holds(state, group.settings[permission], actor, permission);
  if (!allowed) throw bad('Insufficient permission');
  return group;
}

/**
 * A change to a group, saved and told to everyone. News about a deactivated
 * group is marked, so that clients that do not know such groups skip it.
 */
/** A group's new value and what everyone hears of it; `reply` is the command's (nothing by default). */
export function saved<R = null>(state: RealmState, group: StoredGroup, events: UserGroupEvent[], reply: R = null as R) {
  const mark = (e: UserGroupEvent) => group.deactivated && !(e.op === 'update' && 'deactivated' in e.data);
  const told = events.map((e): UserGroupEvent => (mark(e) ? { ...e, group_deactivated: true } : e));
  return {
    events: [{ type: 'userGroupSaved' as const, group }],
    fanouts: told.length > 0 ? [toEveryone(state, told)] : [],
    reply,
  };
}
