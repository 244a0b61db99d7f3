import type { ChatClient } from '@chat/testkit';
import { IDS, withServer } from './context.js';
import { next, register, snapshotOf } from './queues.js';
import { bodyOf, ok, type Body } from './replies.js';

/**
 * Message objects as the original's, checked against the reference's
 * schema in GET /messages, GET /messages/{id} and `message` events:
 * `edit_history` (newest first; absent when never edited),
 * `last_edit_timestamp`, `last_moved_timestamp`, `reactions`,
 * `submessages`, `flags`, and `avatar_url` per `client_gravatar`.
 */
const test = withServer(['iago', 'hamlet']);

type Message = Body & { id: number; flags: string[] };

async function fetched(client: ChatClient, id: number, params: Body = {}): Promise<Message> {
  const body = await ok(client, 'GET', '/messages', {
    anchor: id,
    num_before: 0,
    num_after: 0,
    narrow: '[]',
    ...params,
  });
  return (body.messages as Message[])[0]!;
}

async function single(client: ChatClient, id: number, params: Body = {}): Promise<Message> {
  return (await ok(client, 'GET', `/messages/${id}`, params)).message as Message;
}

test('an edited and moved message carries its edit history, newest first, and both timestamps', async (t) => {
  const { iago, hamlet } = t.context;
  const sent = await ok(iago, 'POST', '/messages', {
    type: 'stream',
    to: 'Verona',
    topic: 'objects before',
    content: 'first words',
  });
  const id = sent.id as number;
  await ok(hamlet, 'POST', `/messages/${id}/reactions`, { emoji_name: 'thumbs_up' });
  await ok(iago, 'POST', `/messages/${id}/reactions`, { emoji_name: 'firebird' }); // Unicode 15.1, by an alias
  // 'ascend' is a CLDR keyword of the phoenix that the original drops (the wing shares it).
  const refused = await iago.post<Body>(`/messages/${id}/reactions`, { emoji_name: 'ascend' });
  t.is(refused.status, 400);
  t.like(refused.body, { result: 'error', code: 'BAD_REQUEST', msg: "Emoji 'ascend' does not exist" });
  await ok(iago, 'PATCH', `/messages/${id}`, { content: 'second words' });
  await ok(iago, 'PATCH', `/messages/${id}`, { topic: 'objects after', propagate_mode: 'change_one' });
  for (const message of [await fetched(hamlet, id), await single(hamlet, id)]) {
    const history = message.edit_history as Body[];
    t.is(history.length, 2);
    t.like(history[0], { user_id: IDS.iago, prev_topic: 'objects before', topic: 'objects after' });
    t.false('prev_content' in history[0]!);
    t.like(history[1], { user_id: IDS.iago, prev_content: 'first words', prev_rendered_content: '<p>first words</p>' });
    t.true((history[0]!.timestamp as number) >= (history[1]!.timestamp as number));
    t.is(message.last_edit_timestamp, history[1]!.timestamp);
    t.is(message.last_moved_timestamp, history[0]!.timestamp);
    t.deepEqual(message.reactions, [
      { emoji_name: 'thumbs_up', emoji_code: '1f44d', reaction_type: 'unicode_emoji', user_id: IDS.hamlet },
      { emoji_name: 'firebird', emoji_code: '1f426-200d-1f525', reaction_type: 'unicode_emoji', user_id: IDS.iago },
    ]);
    t.deepEqual(message.submessages, []);
    t.true(Array.isArray(message.flags));
    t.is(message.subject, 'objects after');
  }
});

test('a message never edited has no edit_history and no edit timestamps', async (t) => {
  const { iago, hamlet } = t.context;
  const sent = await ok(iago, 'POST', '/messages', {
    type: 'stream',
    to: 'Verona',
    topic: 'objects',
    content: 'plain',
  });
  const message = await single(hamlet, sent.id as number);
  for (const key of ['edit_history', 'last_edit_timestamp', 'last_moved_timestamp']) t.false(key in message, key);
  t.deepEqual(message.flags, []);
});

test('avatar_url is null with client_gravatar and the sender’s avatar without it, in fetches and events (a single message: always null)', async (t) => {
  const { iago, hamlet } = t.context;
  const gravatarQueue = await register(hamlet, { event_types: '["message"]', client_gravatar: true });
  const urlQueue = await register(hamlet, { event_types: '["message"]', client_gravatar: false });
  const sent = await ok(iago, 'POST', '/messages', { type: 'stream', to: 'Verona', topic: 'avatars', content: 'hi' });
  const id = sent.id as number;
  t.is((await fetched(hamlet, id, { client_gravatar: true })).avatar_url, null);
  t.is((await single(hamlet, id, { client_gravatar: true })).avatar_url, null);
  const url = (await fetched(hamlet, id, { client_gravatar: false })).avatar_url as string;
  t.regex(url, /^https:\/\/secure\.gravatar\.com\/avatar\/[0-9a-f]{32}\?/);
  // GET /messages/{id} takes no client_gravatar: the original answers as if it were true.
  t.is((await single(hamlet, id, { client_gravatar: false })).avatar_url, null);
  const isIt = (e: Body) => e.type === 'message' && (e.message as Message).id === id;
  const withNull = await next(gravatarQueue, isIt);
  const withUrl = await next(urlQueue, isIt);
  t.is((withNull.message as Message).avatar_url, null);
  t.is((withUrl.message as Message).avatar_url, url);
  // A message event carries the flags beside the message, and the message's own lists.
  t.deepEqual(withUrl.flags, []);
  t.like(withUrl.message, { reactions: [], submessages: [] });
  t.false('edit_history' in (withUrl.message as Message));
});

// Serial, so that the other tests of the file see the default policy.
test.serial('the realm’s edit history policy: moves only, then none, then all again', async (t) => {
  const { iago, hamlet } = t.context;
  const sent = await ok(iago, 'POST', '/messages', { type: 'stream', to: 'Verona', topic: 'policy a', content: 'one' });
  const id = sent.id as number;
  await ok(iago, 'PATCH', `/messages/${id}`, { content: 'two' });
  await ok(iago, 'PATCH', `/messages/${id}`, { topic: 'policy b', propagate_mode: 'change_one' });
  // The reference names no PATCH /realm (realm-settings.test.ts checks the operation itself).
  const policy = (value: string) =>
    bodyOf(iago.call<Body>('PATCH', '/realm', { message_edit_history_visibility_policy: value }));
  try {
    await policy('moves_only');
    const moves = (await single(hamlet, id)).edit_history as Body[];
    t.is(moves.length, 1);
    t.like(moves[0], { prev_topic: 'policy a', topic: 'policy b' });
    await policy('none');
    const hidden = await fetched(hamlet, id);
    t.false('edit_history' in hidden);
    // Clients still see that it was edited.
    t.is(typeof hidden.last_edit_timestamp, 'number');
    const snapshot = await snapshotOf(hamlet, { fetch_event_types: '["realm"]' });
    t.is(snapshot.realm_allow_edit_history, false);
  } finally {
    await policy('all');
  }
  t.is(((await single(hamlet, id)).edit_history as Body[]).length, 2);
  t.is((await snapshotOf(hamlet, { fetch_event_types: '["realm"]' })).realm_allow_edit_history, true);
});
