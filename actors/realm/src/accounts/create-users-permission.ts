import { ChatError, type CanCreateUsersGrant, type RealmCommand } from '@chat/protocol';
import type { Decision } from '@chat/runtime';
import { accountByEmail } from '../behavior.js';
import type { Account, RealmState } from '../state.js';

/**
 * The original's `can_create_users` permission: with administrator rights
 * it opens POST /users. Only the operator changes it (the `change-user-role`
 * admin command, the original's `manage.py change_user_role`); no API does,
 * and clients never see it, so changing it tells no queue.
 */
export type CanCreateUsersEvent = {
  type: 'canCreateUsersSet';
  userId: number;
  granted: boolean;
  /** Absent: can_create_users (the events journaled before can_change_user_emails existed). */
  permission?: 'can_change_user_emails';
};

const held = (account: Account) => ({
  can_create_users: account.canCreateUsers === true,
  can_change_user_emails: account.canChangeUserEmails === true,
});

type SetCanCreateUsers = Extract<RealmCommand, { type: 'realm.setCanCreateUsers' }>;

export function decideCanCreateUsers(
  state: RealmState,
  command: SetCanCreateUsers,
): Decision<CanCreateUsersEvent, CanCreateUsersGrant> {
  const account = accountByEmail(state, command.email);
  if (!account) throw new ChatError('BAD_REQUEST', `No user with email '${command.email}'`);
  const permission = command.permission ?? 'can_create_users';
  const now = held(account);
  const changed = now[permission] !== command.granted;
  const reply: CanCreateUsersGrant = {
    email: account.email,
    user_id: account.id,
    ...now,
    [permission]: command.granted,
    changed,
  };
  // Asking for what already holds changes nothing, so a repeated command is harmless.
  if (!changed) return { reply };
  const event: CanCreateUsersEvent = { type: 'canCreateUsersSet', userId: account.id, granted: command.granted };
  if (permission === 'can_change_user_emails') event.permission = permission;
  return { events: [event], reply };
}

export function applyCanCreateUsers(state: RealmState, event: CanCreateUsersEvent): void {
  const account = state.accounts[event.userId];
  if (!account) return;
  // Absent means not held: snapshots from before the permission read as false, and most accounts stay small.
  const key = event.permission === 'can_change_user_emails' ? 'canChangeUserEmails' : 'canCreateUsers';
  if (event.granted) account[key] = true;
  else delete account[key];
}
