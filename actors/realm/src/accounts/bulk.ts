import type { CreatedUser } from '@chat/protocol';
import { ChatError, MAX_USERS_PER_BATCH, type NewUser } from '@chat/protocol';
import type { Decision } from '@chat/runtime';
import { newAccount, toCreated } from '../behavior.js';
import { spentInvites } from '../invites/invites.js';
import { usersAdded } from '../people.js';
import type { Account, RealmEvent, RealmState } from '../state.js';
import { startingSettings } from '../settings.js';

/**
 * `realm.createUsers`: what `realm.createUser` does for each account (the
 * same checks, the same events, the same `realm_user` add for everyone who
 * was there before), decided once for the whole batch. One journal record
 * and one fan-out per class of roles (people.ts) instead of one per account is what makes a realm of
 * thousands quick to build; all or none, so a retry never half-applies.
 */
export function createUsers(state: RealmState, users: NewUser[], now: number): Decision<RealmEvent, CreatedUser[]> {
  if (users.length === 0) throw new ChatError('BAD_REQUEST', 'No users to create');
  if (users.length > MAX_USERS_PER_BATCH) {
    throw new ChatError('BAD_REQUEST', `At most ${MAX_USERS_PER_BATCH} users at a time`);
  }
  // Checked against the realm and against the batch's own earlier addresses.
  const scratch: RealmState = { ...state, accounts: { ...state.accounts }, byEmail: { ...state.byEmail } };
  const accounts: Account[] = users.map((user, i) => {
    const account = newAccount(scratch, user, state.nextUserId + i, now);
    scratch.accounts[account.id] = account;
    scratch.byEmail[account.email.toLowerCase()] = account.id;
    return account;
  });
  const events: RealmEvent[] = accounts.flatMap((account) => [
    { type: 'accountCreated' as const, account },
    ...spentInvites(state, account.email),
  ]);
  // To the accounts that existed before the batch, as for one account: the new ones have no queue yet.
  return {
    events,
    reply: accounts.map(toCreated),
    fanouts: usersAdded(state, accounts),
    tells: startingSettings(state, accounts),
  };
}
