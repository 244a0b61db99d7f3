import { IDS } from './context.js';
import type { Fixtures } from './matrix-fixtures.js';
import { authenticated, badRequest, INVALID_CHANNEL, OK, type Operation } from './matrix-model.js';

/**
 * Lookups about a channel, and the legacy topic muting. The channel is
 * Denmark: the guest, not subscribed, may not see it, and the other realm
 * has no channel of that id ("Invalid channel ID", access_stream_by_id).
 * Subscription status asks about hamlet, whom the other realm does not
 * know; its channel check comes second ("No such user" first).
 */
const denmark = { id: 0 };

async function prepare(fx: Fixtures): Promise<void> {
  denmark.id = await fx.channelId('Denmark');
}

const onDenmark = authenticated({ everyone: OK, guest: INVALID_CHANNEL, otherRealm: INVALID_CHANNEL });

export const lookupCases: Operation[] = [
  {
    method: 'GET',
    template: '/users/{user_id}/subscriptions/{stream_id}',
    prepare,
    request: () => ({ path: `/users/${IDS.hamlet}/subscriptions/${denmark.id}` }),
    expect: authenticated({ everyone: OK, guest: INVALID_CHANNEL, otherRealm: badRequest('No such user') }),
  },
  {
    method: 'GET',
    template: '/streams/{stream_id}/email_address',
    request: () => ({ path: `/streams/${denmark.id}/email_address` }),
    expect: onDenmark,
  },
  {
    method: 'PATCH',
    template: '/users/me/subscriptions/muted_topics',
    request: () => ({
      path: '/users/me/subscriptions/muted_topics',
      params: { stream_id: denmark.id, topic: 'matrix muted', op: 'add' },
    }),
    expect: onDenmark,
  },
];
