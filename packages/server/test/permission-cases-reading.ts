import type { Fixtures } from './matrix-fixtures.js';
import { authenticated, badRequest, INVALID_CHANNEL, INVALID_MESSAGE, OK, type Operation } from './matrix-model.js';
import { expectOk } from './matrix-fixtures.js';

/**
 * Reading and marking: every account marks its own messages, so each may
 * (the other realm's owner in its own realm). Channels are named by id: a
 * guest may not reach Denmark, which he is not subscribed to, and the other
 * realm has no channel of that id, both "Invalid channel ID" as the
 * original's `access_stream_by_id` answers.
 */
const denmark = { id: 0, message: 0 };

async function prepare(fx: Fixtures): Promise<void> {
  denmark.id = await fx.channelId('Denmark');
  denmark.message = await fx.send(await fx.login('hamlet'), 'Denmark', 'to be read', 'matrix reading');
}

const onDenmark = authenticated({ everyone: OK, guest: INVALID_CHANNEL, otherRealm: INVALID_CHANNEL });
/** A message in Denmark: the guest and the other realm cannot see it ("Invalid message(s)"). */
const onMessage = authenticated({ everyone: OK, guest: INVALID_MESSAGE, otherRealm: INVALID_MESSAGE });

export const readingCases: Operation[] = [
  {
    method: 'POST',
    template: '/mark_all_as_read',
    prepare,
    request: () => ({ path: '/mark_all_as_read' }),
    expect: authenticated({ everyone: OK }),
  },
  {
    method: 'POST',
    template: '/mark_stream_as_read',
    request: () => ({ path: '/mark_stream_as_read', params: { stream_id: denmark.id } }),
    expect: onDenmark,
  },
  {
    method: 'POST',
    template: '/mark_topic_as_read',
    request: () => ({ path: '/mark_topic_as_read', params: { stream_id: denmark.id, topic_name: 'matrix reading' } }),
    expect: onDenmark,
  },
  {
    // The narrow is the caller's own messages: each account's answer is its own.
    method: 'POST',
    template: '/messages/flags/narrow',
    request: () => ({
      path: '/messages/flags/narrow',
      params: { anchor: 'newest', num_before: 10, num_after: 0, narrow: [], op: 'add', flag: 'read' },
    }),
    expect: authenticated({ everyone: OK }),
  },
  {
    method: 'GET',
    template: '/messages/{message_id}/read_receipts',
    request: () => ({ path: `/messages/${denmark.message}/read_receipts` }),
    expect: onMessage,
  },
  {
    method: 'POST',
    template: '/messages/{message_id}/typing',
    request: () => ({ path: `/messages/${denmark.message}/typing`, params: { op: 'start' } }),
    expect: onMessage,
  },
  {
    // Reported to Verona, the moderation request channel the row sets; the other realm has none
    // (the reference's example error), and the guest cannot see the message.
    method: 'POST',
    template: '/messages/{message_id}/report',
    prepare: async (fx) => {
      const verona = await fx.channelId('Verona');
      await expectOk(fx.admin.patch('/realm', { moderation_request_channel_id: verona }));
    },
    request: () => ({ path: `/messages/${denmark.message}/report`, params: { report_type: 'spam' } }),
    expect: authenticated({
      everyone: OK,
      guest: INVALID_MESSAGE,
      otherRealm: badRequest('Moderation request channel must be specified to enable message reporting.'),
    }),
  },
];
