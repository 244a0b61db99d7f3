import {
  ChatError,
  isAdministrator,
  isOwner,
  type Principal,
  type RealmCommand,
  realmUserUpdated,
} from '@chat/protocol';
import type { Decision } from '@chat/runtime';
import { toEveryone } from '../broadcast.js';
import type { RealmState } from '../state.js';

export type ActivityEvent = { type: 'accountActiveSet'; userId: number; active: boolean };

type SetActive = Extract<RealmCommand, { type: 'realm.setActive' }>;

const bad = (msg: string) => new ChatError('BAD_REQUEST', msg);

/**
 * Deactivating or reactivating an account (administrators; owners only by
 * owners). A deactivated account cannot log in, leaves every group's member
 * list and shows as inactive; nothing it wrote is removed.
 */
export function decideSetActive(
  state: RealmState,
  command: SetActive,
): Decision<ActivityEvent, { delivery_email: string; realm_name: string }> {
  const actor: Principal = command.actor;
  if (command.own) checkOwnDeactivation(state, actor.user_id);
  // The original's words (access_user_by_id for an administrator's action).
  else if (!isAdministrator(actor)) throw bad('Insufficient permission');
  const target = state.accounts[command.user_id];
  // Bots are deactivated through their own operations, yet reactivated here, as in the original.
  if (!target || (target.botType !== null && !command.own && !command.active)) throw bad('No such user');
  if (target.isActive === command.active) throw bad(command.active ? 'User is already active' : 'No such user');
  if (isOwner(target) && !isOwner(actor)) throw bad('Must be an organization owner');
  if (!command.active && isOwner(target)) {
    const owners = Object.values(state.accounts).filter((a) => a.isActive && isOwner(a));
    if (owners.length === 1) throw bad('Cannot deactivate the only organization owner');
  }
  const person = { user_id: target.id, is_active: command.active };
  return {
    events: [{ type: 'accountActiveSet', userId: target.id, active: command.active }],
    fanouts: [toEveryone(state, [realmUserUpdated(person)])],
    reply: { delivery_email: target.email, realm_name: state.name },
  };
}

/** The original's rule for leaving on one's own: never the last active user, nor the last owner. */
function checkOwnDeactivation(state: RealmState, userId: number): void {
  const active = Object.values(state.accounts).filter((a) => a.isActive && a.id !== state.notificationBotId);
  const last = (entity: string, isLastOwner: boolean) =>
    new ChatError('CANNOT_DEACTIVATE_LAST_USER', `Cannot deactivate the only ${entity}`, {
      entity,
      is_last_owner: isLastOwner,
    });
  if (active.length === 1) throw last('user', false);
  const owners = active.filter((a) => isOwner(a));
  if (owners.length === 1 && owners[0]!.id === userId) throw last('organization owner', true);
}

export function applyActivity(state: RealmState, event: ActivityEvent): void {
  state.accounts[event.userId]!.isActive = event.active;
}
