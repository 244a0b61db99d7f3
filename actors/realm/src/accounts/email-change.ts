import { ChatError, isAdministrator, realmUserUpdated, seesAddress, type InviteCommand } from '@chat/protocol';
import { accountByEmail } from '../behavior.js';
import { toEveryone, toUsers } from '../broadcast.js';
import { toProfile } from '../profile.js';
import { isExpired } from '../invites/state.js';
import type { Account, RealmState } from '../state.js';
import type { RealmHandlers } from '../state.js';
import type { InviteProtocol } from '@chat/protocol';

export type EmailCommand = Extract<
  InviteCommand,
  { type: 'realm.requestEmailChange' | 'realm.confirmEmailChange' | 'realm.changeUserEmail' }
>;

/** What a mail can be delivered to: one address, with a dotted domain. */
export const VALID_EMAIL = /^[^\s@<>(),;:"[\]\\]+@[^\s@<>(),;:"[\]\\.]+(\.[^\s@<>(),;:"[\]\\.]+)+$/;

/** The original's EMAIL_CHANGE_CONFIRMATION_DAYS. */
const CONFIRMATION_SECONDS = 24 * 3600;

const bad = (msg: string) => new ChatError('BAD_REQUEST', msg);

/** Refuses an address another account (or a deactivated one) already uses. */
function checkAvailable(state: RealmState, email: string, userId: number): void {
  const other = accountByEmail(state, email);
  if (other && other.id !== userId) {
    throw bad(other.isActive ? 'Already has an account.' : 'Account has been deactivated.');
  }
}

export const emailChangeHandlers: RealmHandlers<Pick<InviteProtocol, EmailCommand['type']>> = {
  'realm.requestEmailChange': (ctx, command) => {
    const state = ctx.state;
    const account = state.accounts[command.user_id];
    if (!account?.isActive) throw bad('Account is deactivated');
    const email = command.new_email.trim();
    // The original starts nothing when the address is the current one.
    if (email === account.email) return { reply: { started: false } };
    if (!VALID_EMAIL.test(email)) throw bad('Invalid address.');
    checkAvailable(state, email, account.id);
    const change = {
      userId: account.id,
      newEmail: email,
      keyHash: command.key_hash,
      expiresAt: Math.floor(ctx.now / 1000) + CONFIRMATION_SECONDS,
    };
    const reply = { started: true, old_email: account.email, full_name: account.fullName, realm_name: state.name };
    return { events: [{ type: 'emailChangeRequested', change }], reply };
  },
  'realm.confirmEmailChange': (ctx, command) => {
    const state = ctx.state;
    const change = state.emailChanges?.[command.key_hash];
    const account = change && state.accounts[change.userId];
    if (!change || !account?.isActive || isExpired(change.expiresAt, ctx.now)) {
      throw bad('Whoops. The confirmation link has expired or been deactivated.');
    }
    checkAvailable(state, change.newEmail, account.id);
    return {
      ...emailChange(state, account, change.newEmail),
      reply: { user_id: account.id, old_email: account.email, new_email: change.newEmail, realm_name: state.name },
    };
  },
  'realm.changeUserEmail': ({ state }, command) => {
    // As the original's access_user_by_id for an administrator's action, then its special permission.
    if (!isAdministrator(command.actor)) throw bad('Insufficient permission');
    const account = state.accounts[command.user_id];
    if (!account) throw bad('No such user');
    const email = command.new_email.trim();
    if (email === account.email) return { reply: null };
    if (state.accounts[command.actor.user_id]?.canChangeUserEmails !== true) {
      throw bad('User not authorized to change user emails');
    }
    if (!VALID_EMAIL.test(email)) throw bad('Invalid address.');
    checkAvailable(state, email, account.id);
    return { ...emailChange(state, account, email), reply: null };
  },
};

/**
 * The change itself: the new address reaches those who may see it; the API
 * address changes (for all) only when it is the real one.
 */
function emailChange(state: RealmState, account: Account, email: string) {
  const person = (fields: Record<string, unknown>) => realmUserUpdated({ user_id: account.id, ...fields });
  const target = toProfile(account);
  const seers = Object.values(state.accounts)
    .filter((other) => seesAddress({ user_id: other.id, role: other.role }, target))
    .map((other) => other.id);
  const fanouts = [toUsers(state, seers, [person({ delivery_email: email })])];
  if (account.apiEmail === undefined) fanouts.push(toEveryone(state, [person({ new_email: email })]));
  return { events: [{ type: 'emailChanged' as const, userId: account.id, email }], fanouts };
}
