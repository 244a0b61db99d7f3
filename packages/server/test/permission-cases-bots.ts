import type { Fixtures } from './matrix-fixtures.js';
import { authenticated, badRequest, NO_BOTS, NO_GUESTS, OK, type Caller, type Operation } from './matrix-model.js';

/**
 * Bots and their storage. Making, listing, changing and re-keying bots is
 * for people who are not guests (the original's `require_member_or_admin`);
 * a bot is administered by its owner and by administrators
 * (`access_bot_by_id`: "Insufficient permission" for anyone else, "No such
 * bot" for an id that names no bot of the caller's realm). Deactivating has
 * no guard of its own, so bots and guests get as far as "Insufficient
 * permission". Storage is every caller's own.
 */
const INSUFFICIENT = badRequest('Insufficient permission');
const NO_SUCH_BOT = badRequest('No such bot');
/** An id to put in a path for callers who cannot make anything: they are refused before it is read. */
const NONE = 1;

let counter = 0;
const shortName = (caller: Caller) => `matrix${caller.role}${++counter}x${Date.now() % 100_000}`;

/** A bot of the member's (othello), for rows that change one: the member owns it, administrators administer it. */
async function membersBot(fx: Fixtures): Promise<number> {
  const member = fx.callers.member;
  const name = shortName(member);
  const made = await member.client.post<{ user_id: number }>('/bots', { full_name: `Bot ${name}`, short_name: name });
  if (made.status !== 200) throw new Error(`POST /bots: ${JSON.stringify(made.body)}`);
  return made.body.user_id;
}

const target = async (fx: Fixtures, caller: Caller) => (caller.signedIn ? membersBot(fx) : NONE);

const FOR_PEOPLE = authenticated({ everyone: OK, bot: NO_BOTS, guest: NO_GUESTS });
/** Changing the member's bot: its owner and administrators; another realm finds no such bot. */
const ADMINISTERS = authenticated({
  everyone: OK,
  bot: NO_BOTS,
  guest: NO_GUESTS,
  moderator: INSUFFICIENT,
  otherRealm: NO_SUCH_BOT,
});
const ALL = authenticated({ everyone: OK });

export const botCases: Operation[] = [
  {
    method: 'POST',
    template: '/bots',
    request: (_fx, caller) => {
      const name = shortName(caller);
      return { path: '/bots', params: { full_name: `Bot ${name}`, short_name: name } };
    },
    expect: FOR_PEOPLE,
  },
  { method: 'GET', template: '/bots', request: () => ({ path: '/bots' }), expect: FOR_PEOPLE },
  {
    method: 'PATCH',
    template: '/bots/{bot_id}',
    request: async (fx, caller) => ({
      path: `/bots/${await target(fx, caller)}`,
      params: { default_all_public_streams: true },
    }),
    expect: ADMINISTERS,
  },
  {
    method: 'DELETE',
    template: '/bots/{bot_id}',
    request: async (fx, caller) => ({ path: `/bots/${await target(fx, caller)}` }),
    expect: authenticated({
      everyone: OK,
      bot: INSUFFICIENT,
      guest: INSUFFICIENT,
      moderator: INSUFFICIENT,
      otherRealm: NO_SUCH_BOT,
    }),
  },
  {
    method: 'POST',
    template: '/bots/{bot_id}/api_key/regenerate',
    request: async (fx, caller) => ({ path: `/bots/${await target(fx, caller)}/api_key/regenerate` }),
    expect: ADMINISTERS,
  },
  { method: 'GET', template: '/bot_storage', request: () => ({ path: '/bot_storage' }), expect: ALL },
  {
    method: 'PUT',
    template: '/bot_storage',
    request: () => ({ path: '/bot_storage', params: { storage: JSON.stringify({ matrix: 'yes' }) } }),
    expect: ALL,
  },
  { method: 'DELETE', template: '/bot_storage', request: () => ({ path: '/bot_storage' }), expect: ALL },
];
