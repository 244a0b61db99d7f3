import { IDS } from './context.js';
import { authenticated, badRequest, OK, type Caller, type Operation } from './matrix-model.js';

/**
 * Muted users and alert words: each account mutes and keeps words for
 * itself, so every one may; bots too (the original has no rule against
 * them). The muted user is hamlet, whom the other realm does not know:
 * "No such user" (the original's `access_user_by_id`).
 */
const HAMLET = IDS.hamlet;
const NO_SUCH_USER = badRequest('No such user');

/** Before unmuting, the caller mutes (a refusal either way for callers who cannot). */
async function muted(caller: Caller): Promise<void> {
  if (caller.signedIn) await caller.client.post(`/users/me/muted_users/${HAMLET}`);
}

/** Before muting, the caller unmutes, so that each run of the row starts from the same state. */
async function unmuted(caller: Caller): Promise<void> {
  if (caller.signedIn) await caller.client.delete(`/users/me/muted_users/${HAMLET}`);
}

const WORDS = { alert_words: JSON.stringify(['matrix']) };

export const mutingCases: Operation[] = [
  {
    method: 'POST',
    template: '/users/me/muted_users/{muted_user_id}',
    request: async (_fx, caller) => {
      await unmuted(caller);
      return { path: `/users/me/muted_users/${HAMLET}` };
    },
    expect: authenticated({ everyone: OK, otherRealm: NO_SUCH_USER }),
  },
  {
    method: 'DELETE',
    template: '/users/me/muted_users/{muted_user_id}',
    request: async (_fx, caller) => {
      await muted(caller);
      return { path: `/users/me/muted_users/${HAMLET}` };
    },
    expect: authenticated({ everyone: OK, otherRealm: NO_SUCH_USER }),
  },
  {
    method: 'GET',
    template: '/users/me/alert_words',
    request: () => ({ path: '/users/me/alert_words' }),
    expect: authenticated({ everyone: OK }),
  },
  {
    method: 'POST',
    template: '/users/me/alert_words',
    request: () => ({ path: '/users/me/alert_words', params: WORDS }),
    expect: authenticated({ everyone: OK }),
  },
  {
    method: 'DELETE',
    template: '/users/me/alert_words',
    request: () => ({ path: '/users/me/alert_words', params: WORDS }),
    expect: authenticated({ everyone: OK }),
  },
];
