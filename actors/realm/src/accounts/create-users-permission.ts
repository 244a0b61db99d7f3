import { ChatError, type CanCreateUsersGrant, type RealmCommand } from '@chat/protocol';
import type { Decision } from '@chat/runtime';
import { accountByEmail } from '../behavior.js';
import type { RealmState } from '../state.js';

/**
 * The original's `can_create_users` permission: with administrator rights
 * it opens POST /users. Only the operator changes it (the `change-user-role`
 * admin command, the original's `manage.py change_user_role`); no API does,
 * and clients never see it, so changing it tells no queue.
 */
export type CanCreateUsersEvent = { type: 'canCreateUsersSet'; userId: number; granted: boolean };

type SetCanCreateUsers = Extract<RealmCommand, { type: 'realm.setCanCreateUsers' }>;

export function decideCanCreateUsers(
  state: RealmState,
  command: SetCanCreateUsers,
): Decision<CanCreateUsersEvent, CanCreateUsersGrant> {
  const account = accountByEmail(state, command.email);
  if (!account) throw new ChatError('BAD_REQUEST', `No user with email '${command.email}'`);
  const held = account.canCreateUsers === true;
  const reply: CanCreateUsersGrant = {
    email: account.email,
    user_id: account.id,
    can_create_users: command.granted,
    changed: held !== command.granted,
  };
  // Asking for what already holds changes nothing, so a repeated command is harmless.
  if (!reply.changed) return { reply };
  return { events: [{ type: 'canCreateUsersSet', userId: account.id, granted: command.granted }], reply };
}

export function applyCanCreateUsers(state: RealmState, event: CanCreateUsersEvent): void {
  const account = state.accounts[event.userId];
  if (!account) return;
  // Absent means not held: snapshots from before the permission read as false, and most accounts stay small.
  if (event.granted) account.canCreateUsers = true;
  else delete account.canCreateUsers;
}
