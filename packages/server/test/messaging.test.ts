import { createHash } from 'node:crypto';
import type { ChatClient, Reply } from '@chat/testkit';
import { withServer } from './context.js';
import { call, type Body } from './replies.js';

/**
 * Conformance of the messaging operations, driven as a client would: each
 * success is read back through another operation, each failure has the
 * spec's code, and bodies are checked against the reference's schemas.
 */
// A low wildcard threshold, so small channels count as "many subscribers".
const test = withServer(['iago', 'hamlet', 'polonius'], { wildcardThreshold: 3 });

const send = (client: ChatClient, params: Body) => call(client, 'POST', '/messages', params);
const idOf = (reply: Reply<Body>) => reply.body.id as number;
const messagesIn = async (client: ChatClient, narrow: unknown[], extra: Body = {}) => {
  const reply = await call(client, 'GET', '/messages', {
    anchor: 'newest',
    num_before: 100,
    num_after: 0,
    narrow: JSON.stringify(narrow),
    ...extra,
  });
  return reply.body.messages as Array<Body & { id: number; flags: string[] }>;
};

test('a channel message is sent, found by its narrow and fetched alone', async (t) => {
  const { iago, hamlet } = t.context;
  const sent = await send(iago, {
    type: 'stream',
    to: 'Verona',
    topic: 'greetings',
    content: 'Hello @**King Hamlet**',
  });
  t.is(sent.status, 200);
  const id = idOf(sent);
  const found = await messagesIn(hamlet, [{ operator: 'channel', operand: 'Verona' }, ['topic', 'greetings']]);
  const message = found.find((m) => m.id === id)!;
  t.like(message, { sender_id: 11, subject: 'greetings', display_recipient: 'Verona', type: 'stream' });
  t.regex(message.content as string, /class="user-mention" data-user-id="10">@King Hamlet</);
  t.deepEqual(message.flags, ['mentioned']);
  const single = await call(hamlet, 'GET', `/messages/${id}`);
  t.is((single.body.message as Body).id, id);
  t.is(single.body.raw_content, 'Hello @**King Hamlet**');
});

test('a channel is named by id as well as by name; an unknown name is STREAM_DOES_NOT_EXIST', async (t) => {
  const { iago } = t.context;
  t.is((await send(iago, { type: 'channel', to: 3, topic: 'by id', content: 'x' })).status, 200);
  const missing = await send(iago, { type: 'stream', to: 'Atlantis', topic: 't', content: 'x' });
  t.is(missing.status, 400);
  t.like(missing.body, { code: 'STREAM_DOES_NOT_EXIST', stream: 'Atlantis' });
});

test('direct messages by e-mail or id reach the same conversation', async (t) => {
  const { iago, hamlet } = t.context;
  const a = idOf(await send(iago, { type: 'direct', to: JSON.stringify(['hamlet@zulip.com']), content: 'one' }));
  const b = idOf(await send(iago, { type: 'private', to: '[10]', content: 'two' }));
  const seen = await messagesIn(hamlet, [['dm', 'iago@zulip.com']]);
  t.deepEqual(
    seen.map((m) => m.id).filter((id) => id === a || id === b),
    [a, b],
  );
  t.like(
    seen.find((m) => m.id === a),
    { type: 'private', subject: '' },
  );
  t.deepEqual(seen.find((m) => m.id === a)!.flags, []);
  const bad = await send(iago, { type: 'direct', to: '[99999]', content: 'x' });
  t.like(bad.body, { code: 'BAD_REQUEST' });
});

test('topic rules: "(no topic)" is the empty topic; limits are enforced with clear errors', async (t) => {
  const { iago } = t.context;
  const id = idOf(await send(iago, { type: 'stream', to: 'Denmark', topic: '(no topic)', content: 'x' }));
  const [message] = (await call(iago, 'GET', '/messages', { message_ids: `[${id}]`, allow_empty_topic_name: true }))
    .body.messages as Body[];
  t.is(message!.subject, '');
  const long = await send(iago, { type: 'stream', to: 'Denmark', topic: 'x'.repeat(61), content: 'x' });
  t.like(long.body, { code: 'BAD_REQUEST', msg: 'Topic is too long (limit: 60 characters)' });
  const huge = await send(iago, { type: 'stream', to: 'Denmark', topic: 't', content: 'x'.repeat(10001) });
  t.like(huge.body, { code: 'BAD_REQUEST' });
  const none = await send(iago, { type: 'stream', to: 'Denmark', content: 'x' });
  t.like(none.body, { code: 'BAD_REQUEST', msg: 'Missing topic' });
});

test('wildcard mentions in a large channel need can_mention_many_users_group', async (t) => {
  const { iago, hamlet } = t.context;
  const refused = await send(hamlet, { type: 'stream', to: 'Verona', topic: 'wild', content: 'hey @**all**' });
  t.is(refused.status, 400);
  t.is(refused.body.code, 'STREAM_WILDCARD_MENTION_NOT_ALLOWED');
  t.is((await send(iago, { type: 'stream', to: 'Verona', topic: 'wild', content: 'hey @**all**' })).status, 200);
  for (const who of ['othello', 'cordelia', 'prospero']) {
    const client = await t.context.server.login(`${who}@zulip.com`);
    await send(client, { type: 'stream', to: 'Verona', topic: 'busy', content: 'here' });
  }
  const topic = await send(hamlet, { type: 'stream', to: 'Verona', topic: 'busy', content: '@**topic** look' });
  t.is(topic.body.code, 'TOPIC_WILDCARD_MENTION_NOT_ALLOWED');
});

test('content edits: only the sender, guarded by prev_content_sha256, with history', async (t) => {
  const { iago, hamlet } = t.context;
  const id = idOf(await send(hamlet, { type: 'stream', to: 'Denmark', topic: 'edits', content: 'draft one' }));
  const other = await call(iago, 'PATCH', `/messages/${id}`, { content: 'hijacked' });
  t.like(other.body, { code: 'BAD_REQUEST', msg: "You don't have permission to edit this message" });
  const stale = await call(hamlet, 'PATCH', `/messages/${id}`, {
    content: 'two',
    prev_content_sha256: 'ab'.repeat(32),
  });
  t.is(stale.body.code, 'BAD_REQUEST');
  const sha = createHash('sha256').update('draft one').digest('hex');
  const ok = await call(hamlet, 'PATCH', `/messages/${id}`, { content: 'draft two', prev_content_sha256: sha });
  t.deepEqual(ok.body.detached_uploads, []);
  const both = await call(hamlet, 'PATCH', `/messages/${id}`, { content: 'x', stream_id: 3 });
  t.is(both.body.code, 'BAD_REQUEST');
  const history = await call(hamlet, 'GET', `/messages/${id}/history`);
  t.deepEqual(
    (history.body.message_history as Body[]).map((v) => v.content),
    ['draft one', 'draft two'],
  );
});

test('resolving a topic moves all of it and posts one notice', async (t) => {
  const { iago, hamlet } = t.context;
  const first = idOf(await send(hamlet, { type: 'stream', to: 'Denmark', topic: 'bug 7', content: 'broken' }));
  await send(iago, { type: 'stream', to: 'Denmark', topic: 'bug 7', content: 'fixed' });
  await call(hamlet, 'PATCH', `/messages/${first}`, { topic: '✔ bug 7', propagate_mode: 'change_all' });
  const resolved = await messagesIn(hamlet, [
    ['channel', 'Denmark'],
    ['is', 'resolved'],
    ['topic', '✔ bug 7'],
  ]);
  t.deepEqual(
    resolved.map((m) => m.content),
    [
      '<p>broken</p>',
      '<p>fixed</p>',
      `<p><span class="user-mention silent" data-user-id="10">King Hamlet</span> has marked this topic as resolved.</p>`,
    ],
  );
  t.deepEqual(
    await messagesIn(hamlet, [
      ['channel', 'Denmark'],
      ['topic', 'bug 7'],
    ]),
    [],
  );
});

test('change_later moves the target and what follows it, not what came before', async (t) => {
  const { iago } = t.context;
  const ids = [];
  for (const content of ['a', 'b', 'c']) {
    ids.push(idOf(await send(iago, { type: 'stream', to: 'Scotland', topic: 'split me', content })));
  }
  await call(iago, 'PATCH', `/messages/${ids[1]}`, {
    topic: 'split off',
    propagate_mode: 'change_later',
    send_notification_to_new_thread: false,
  });
  const moved = await messagesIn(iago, [
    ['channel', 'Scotland'],
    ['topic', 'split off'],
  ]);
  t.deepEqual(
    moved.map((m) => m.id),
    [ids[1], ids[2]],
  );
});

test('deleting a topic is for administrators and answers complete', async (t) => {
  const { iago, hamlet } = t.context;
  for (let i = 0; i < 3; i++) await send(hamlet, { type: 'stream', to: 'Denmark', topic: 'doomed', content: `m${i}` });
  const refused = await call(hamlet, 'POST', '/streams/4/delete_topic', { topic_name: 'doomed' });
  t.like(refused.body, { code: 'UNAUTHORIZED_PRINCIPAL' });
  const done = await call(iago, 'POST', '/streams/4/delete_topic', { topic_name: 'doomed' });
  t.is(done.body.complete, true);
  t.deepEqual(
    await messagesIn(iago, [
      ['channel', 'Denmark'],
      ['topic', 'doomed'],
    ]),
    [],
  );
});

test('reactions, stars and read flags are read back through narrows', async (t) => {
  const { iago, hamlet } = t.context;
  const id = idOf(await send(iago, { type: 'stream', to: 'Verona', topic: 'flags', content: 'react to me' }));
  t.is((await call(hamlet, 'POST', `/messages/${id}/reactions`, { emoji_name: 'smile' })).status, 200);
  const again = await call(hamlet, 'POST', `/messages/${id}/reactions`, { emoji_name: 'smile' });
  t.like(again.body, { code: 'REACTION_ALREADY_EXISTS', msg: 'Reaction already exists.' });
  t.like((await call(hamlet, 'POST', `/messages/${id}/reactions`, { emoji_name: 'no_such_emoji' })).body, {
    code: 'BAD_REQUEST',
  });
  t.true((await messagesIn(hamlet, [['is', 'unread']])).some((m) => m.id === id));
  await call(hamlet, 'POST', '/messages/flags', { messages: `[${id}]`, op: 'add', flag: 'read' });
  await call(hamlet, 'POST', '/messages/flags', { messages: `[${id}]`, op: 'add', flag: 'starred' });
  const starred = await messagesIn(hamlet, [['is', 'starred']]);
  t.deepEqual(
    starred.map((m) => m.id),
    [id],
  );
  t.deepEqual(starred[0]!.flags, ['read', 'starred']);
  t.is((starred[0]!.reactions as Body[])[0]!.emoji_name, 'smile');
  t.false((await messagesIn(hamlet, [['is', 'unread']])).some((m) => m.id === id));
  const fixed = await call(hamlet, 'POST', '/messages/flags', { messages: `[${id}]`, op: 'add', flag: 'mentioned' });
  t.is(fixed.body.code, 'BAD_REQUEST');
});

test('search highlights matches in GET /messages and matches_narrow', async (t) => {
  const { iago } = t.context;
  const hit = idOf(
    await send(iago, { type: 'stream', to: 'Venice', topic: 'gondolas', content: 'The canal is quiet' }),
  );
  const miss = idOf(await send(iago, { type: 'stream', to: 'Venice', topic: 'gondolas', content: 'Nothing here' }));
  const found = await messagesIn(iago, [
    ['channel', 'Venice'],
    ['search', 'canal'],
  ]);
  t.deepEqual(
    found.map((m) => m.id),
    [hit],
  );
  t.regex(found[0]!.match_content as string, /<span class="highlight">canal<\/span>/);
  const matched = await call(iago, 'GET', '/messages/matches_narrow', {
    msg_ids: JSON.stringify([hit, miss]),
    narrow: JSON.stringify([{ operator: 'search', operand: 'canal' }]),
  });
  t.deepEqual(Object.keys(matched.body.messages as Body), [String(hit)]);
});

test('a deleted message is gone for everyone', async (t) => {
  const { iago, hamlet } = t.context;
  const id = idOf(await send(hamlet, { type: 'stream', to: 'Verona', topic: 'oops', content: 'wrong channel' }));
  t.is((await call(iago, 'DELETE', `/messages/${id}`)).status, 200);
  const gone = await call(hamlet, 'GET', `/messages/${id}`);
  t.like(gone.body, { code: 'BAD_REQUEST', msg: 'Invalid message(s)' });
});

test("each role gets exactly what the channel's group settings give it", async (t) => {
  const { iago, hamlet, polonius } = t.context;
  const shiva = await t.context.server.login('shiva@zulip.com');
  const post = (client: ChatClient) => send(client, { type: 'stream', to: 'Scotland', topic: 'perms', content: 'hi' });
  const setSenders = (group: number) =>
    call(iago, 'PATCH', '/streams/6', { can_send_message_group: JSON.stringify({ new: group }) });
  t.is((await setSenders(6)).status, 200); // role:administrators
  t.deepEqual(await Promise.all([iago, shiva, hamlet].map(async (c) => (await post(c)).status)), [200, 400, 400]);
  t.is((await setSenders(5)).status, 200); // role:moderators
  t.deepEqual(await Promise.all([iago, shiva, hamlet].map(async (c) => (await post(c)).status)), [200, 200, 400]);
  const stale = await call(iago, 'PATCH', '/streams/6', { can_send_message_group: JSON.stringify({ new: 2, old: 6 }) });
  t.like(stale.body, { code: 'BAD_REQUEST' });
  // A member may not administer the channel; a guest sees neither private nor unsubscribed channels.
  t.is((await call(hamlet, 'PATCH', '/streams/6', { description: 'mine now' })).status, 400);
  t.is(
    (await call(polonius, 'GET', '/messages', { anchor: 'newest', num_before: 1, narrow: '[["channel", "Denmark"]]' }))
      .status,
    400,
  );
  t.is((await send(polonius, { type: 'stream', to: 'core team', topic: 't', content: 'x' })).status, 400);
  t.is(
    (await call(polonius, 'GET', '/messages', { anchor: 'newest', num_before: 1, narrow: '[["channel", "Verona"]]' }))
      .status,
    200,
  );
});

test('unsubscribing others takes permission; the reply says what changed', async (t) => {
  const { iago, hamlet } = t.context;
  const others = await call(hamlet, 'DELETE', '/users/me/subscriptions', {
    subscriptions: '["Verona"]',
    principals: '["othello@zulip.com"]',
  });
  t.like(others.body, { code: 'BAD_REQUEST' });
  const done = await call(iago, 'DELETE', '/users/me/subscriptions', {
    subscriptions: '["Verona", "Rome"]',
    principals: '[12]',
  });
  t.deepEqual(done.body.removed, ['Verona']);
  t.deepEqual(done.body.not_removed, ['Rome']);
  const members = await call(iago, 'GET', '/streams/3/members');
  t.false((members.body.subscribers as number[]).includes(12));
  const missing = await call(iago, 'DELETE', '/users/me/subscriptions', { subscriptions: '["Atlantis"]' });
  t.like(missing.body, { code: 'STREAM_DOES_NOT_EXIST', stream: 'Atlantis' });
});

test('GET /users/me/{stream_id}/topics lists topics newest first; a guest outside the channel is refused', async (t) => {
  const { iago, hamlet, polonius } = t.context;
  // A channel of its own: other tests post to the shared ones concurrently.
  const hamletId = (await call(hamlet, 'GET', '/users/me')).body.user_id as number;
  await call(iago, 'POST', '/users/me/subscriptions', {
    subscriptions: JSON.stringify([{ name: 'topic list' }]),
    principals: JSON.stringify([hamletId]),
  });
  const channelId = (await call(hamlet, 'GET', '/get_stream_id', { stream: 'topic list' })).body.stream_id as number;
  await send(iago, { type: 'stream', to: 'topic list', topic: 'older topic', content: 'one' });
  const last = idOf(await send(iago, { type: 'stream', to: 'topic list', topic: 'newer topic', content: 'two' }));
  const listed = await call(hamlet, 'GET', `/users/me/${channelId}/topics`);
  t.is(listed.status, 200);
  const topics = listed.body.topics as Array<{ name: string; max_id: number }>;
  t.deepEqual(topics[0], { name: 'newer topic', max_id: last });
  t.true(topics.findIndex((x) => x.name === 'older topic') > 0);
  // GET /users/me tells the newest message the user has received.
  t.true(((await call(hamlet, 'GET', '/users/me')).body.max_message_id as number) >= last);
  const guest = await call(polonius, 'GET', `/users/me/${channelId}/topics`);
  t.is(guest.status, 400);
  t.like(guest.body, { code: 'BAD_REQUEST', msg: 'Invalid channel ID' });
});
