import type { Fixtures } from './matrix-fixtures.js';
import {
  authenticated,
  badRequest,
  INVALID_MESSAGE,
  OK,
  refused,
  type Caller,
  type Operation,
} from './matrix-model.js';

/**
 * Messages. The targets sit in Denmark, a public channel the guest
 * (polonius) and the bot are not subscribed to: a guest reads only
 * channels they are subscribed to, any other account every public channel
 * (spec, Channel: `invite_only`; the original's `has_message_access`), and
 * the other realm knows no message of this one ("Invalid message(s)",
 * reference get-message 400). The history row reads one in Rome, web-public,
 * which the guest reads without being in it.
 */
const made = { denmark: 0, byMember: 0, poll: 0, rome: 0 };

async function prepare(fx: Fixtures): Promise<void> {
  made.denmark = await fx.send(await fx.login('hamlet'), 'Denmark', 'a message in Denmark');
  made.byMember = await fx.send(fx.callers.member.client, 'Verona', 'written by othello');
  made.poll = await fx.send(await fx.login('hamlet'), 'Denmark', '/poll Matrix?\nyes\nno');
  made.rome = await fx.send(await fx.login('hamlet'), 'Rome', 'a message in Rome');
}

/** Readable by every account that may read Denmark. */
const onDenmark = authenticated({ everyone: OK, guest: INVALID_MESSAGE, otherRealm: INVALID_MESSAGE });

/** Before removing a reaction the caller adds it; callers who cannot are refused either way. */
async function reacted(caller: Caller): Promise<void> {
  if (caller.signedIn) await caller.client.post(`/messages/${made.denmark}/reactions`, { emoji_name: 'octopus' });
}

export const messageCases: Operation[] = [
  {
    // Spec 1: anyone may post to a public channel; the other realm has no channel by that name
    // (STREAM_DOES_NOT_EXIST with the extra field `stream`).
    method: 'POST',
    template: '/messages',
    prepare,
    request: () => ({
      path: '/messages',
      params: { type: 'stream', to: 'Verona', topic: 'matrix send', content: 'hi' },
    }),
    expect: authenticated({
      everyone: OK,
      otherRealm: refused('STREAM_DOES_NOT_EXIST', "Channel 'Verona' does not exist", { stream: 'Verona' }),
    }),
  },
  {
    // get-messages: each caller fetches what it may read, the other realm its own.
    method: 'GET',
    template: '/messages',
    request: () => ({ path: '/messages', params: { anchor: 'newest', num_before: 5, num_after: 0 } }),
    expect: authenticated({ everyone: OK }),
  },
  {
    method: 'POST',
    template: '/messages/render',
    request: () => ({ path: '/messages/render', params: { content: '**matrix**' } }),
    expect: authenticated({ everyone: OK }),
  },
  {
    // Spec 6: an id the caller cannot read is not an error, it just does not match (leaks.test.ts checks that).
    method: 'GET',
    template: '/messages/matches_narrow',
    request: () => ({ path: '/messages/matches_narrow', params: { msg_ids: [made.denmark], narrow: [] } }),
    expect: authenticated({ everyone: OK }),
  },
  {
    method: 'GET',
    template: '/messages/{message_id}',
    request: () => ({ path: `/messages/${made.denmark}` }),
    expect: onDenmark,
  },
  {
    // Spec 2: BAD_REQUEST without edit permission; only the sender edits a message's content (reference
    // update-message: "You don't have permission to edit this message"), administrators included.
    method: 'PATCH',
    template: '/messages/{message_id}',
    request: (_fx, caller) => ({ path: `/messages/${made.byMember}`, params: { content: `edited by ${caller.role}` } }),
    expect: authenticated({
      everyone: badRequest("You don't have permission to edit this message"),
      member: OK,
      otherRealm: INVALID_MESSAGE,
    }),
  },
  {
    // x-requires-administrator (delete-message): can_delete_any_message_group is administrators by default;
    // the message is hamlet's, so nobody else deletes it as their own.
    method: 'DELETE',
    template: '/messages/{message_id}',
    request: async (fx) => ({ path: `/messages/${await fx.send(await fx.login('hamlet'), 'Verona', 'doomed')}` }),
    expect: authenticated({
      everyone: badRequest("You don't have permission to delete this message"),
      administrator: OK,
      owner: OK,
      otherRealm: INVALID_MESSAGE,
    }),
  },
  {
    method: 'POST',
    template: '/messages/{message_id}/reactions',
    request: () => ({ path: `/messages/${made.denmark}/reactions`, params: { emoji_name: 'smile' } }),
    expect: onDenmark,
  },
  {
    method: 'DELETE',
    template: '/messages/{message_id}/reactions',
    request: async (_fx, caller) => {
      await reacted(caller);
      return { path: `/messages/${made.denmark}/reactions`, params: { emoji_name: 'octopus' } };
    },
    expect: onDenmark,
  },
  {
    // A vote on hamlet's poll: anyone who can access the message may add one (the original's `access_message`).
    method: 'POST',
    template: '/submessage',
    request: () => ({
      path: '/submessage',
      params: { message_id: made.poll, msg_type: 'widget', content: '{"type":"vote","key":"canned,0","vote":1}' },
    }),
    expect: onDenmark,
  },
  {
    // The original checks access to every message it has no row for (`access_message`).
    method: 'POST',
    template: '/messages/flags',
    request: () => ({ path: '/messages/flags', params: { messages: [made.denmark], op: 'add', flag: 'starred' } }),
    expect: onDenmark,
  },
  {
    method: 'GET',
    template: '/messages/{message_id}/history',
    // Rome is web-public: the guest, who is not in it, reads it too (the original's user_has_content_access).
    request: () => ({ path: `/messages/${made.rome}/history` }),
    expect: authenticated({ everyone: OK, otherRealm: INVALID_MESSAGE }),
  },
];
