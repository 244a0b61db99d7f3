import { ChatError, groupMembers, type Principal } from '@chat/protocol';
import { groupToChange, saved } from '../groups/access.js';
import { userGroupsOf } from '../groups/model.js';
import type { Account, RealmEvent, RealmState } from '../state.js';

type Fanout = ReturnType<typeof saved>['fanouts'][number];

/**
 * The groups an invitation adds its user to: each must be an active
 * user-defined group that the inviter may add members to (the original's
 * `can_add_members_group` check, with its messages).
 */
export function checkInviteGroups(state: RealmState, inviter: Principal, groupIds: number[]): void {
  if (groupIds.length === 0) return;
  const actor = state.accounts[inviter.user_id];
  if (!actor?.isActive) throw new ChatError('BAD_REQUEST', 'Account is deactivated');
  for (const id of new Set(groupIds)) groupToChange(state, actor, id, 'can_add_members_group');
}

/**
 * Adds a just-created account to its invitation's groups. Permission was
 * checked when the invitation was made; groups deactivated or gone since
 * are skipped rather than failing the join.
 */
export function joinInviteGroups(
  state: RealmState,
  account: Account,
  groupIds: number[],
): { events: RealmEvent[]; fanouts: Fanout[]; joined: number[] } {
  const events: RealmEvent[] = [];
  const fanouts: Fanout[] = [];
  const joined: number[] = [];
  for (const id of new Set(groupIds)) {
    const group = userGroupsOf(state)[id];
    if (!group || group.deactivated || group.members.includes(account.id)) continue;
    const save = saved(state, { ...group, members: [...group.members, account.id] }, [
      groupMembers('add_members', id, [account.id]),
    ]);
    events.push(...save.events);
    fanouts.push(...save.fanouts);
    joined.push(id);
  }
  return { events, fanouts, joined };
}
