import { channelAddress, realmAddress, ROLES, systemGroupsOf } from '@chat/protocol';
import { waitFor } from '@chat/testkit';
import { IDS, withServer } from './context.js';
import { channel, channelOf, messagesIn, move, send, topicOf } from './move-support.js';
import { call, ok, type Body } from './replies.js';

/**
 * Moving messages between channels (PATCH /messages/{id} with stream_id),
 * read back through GET /messages, the message itself and its history.
 * Tests run concurrently, each on channels of its own.
 */
const test = withServer(['iago', 'hamlet', 'othello']);

const quiet = { send_notification_to_new_thread: false };
const members = [IDS.iago, IDS.hamlet, IDS.othello];

test('change_one moves one message with its reactions, read state and history; the rest stays', async (t) => {
  const { iago, hamlet, othello } = t.context;
  const [a, b] = [await channel(iago, 'mv one a', members), await channel(iago, 'mv one b', members)];
  const first = await send(hamlet, a, 'plans', 'first');
  const second = await send(hamlet, a, 'plans', 'second');
  await ok(iago, 'POST', `/messages/${first}/reactions`, { emoji_name: 'tada' });
  await ok(othello, 'POST', '/messages/flags', { messages: JSON.stringify([first]), op: 'add', flag: 'read' });
  const reply = await move(hamlet, first, { stream_id: b, ...quiet });
  t.is(reply.status, 200);
  t.deepEqual(reply.body.detached_uploads, []);

  const there = await messagesIn(othello, topicOf(b, 'plans'));
  t.deepEqual(
    there.map((m) => [m.id, m.content, m.stream_id]),
    [[first, 'first', b]],
  );
  t.like((there[0]!.reactions as Body[])[0], { emoji_name: 'tada', user_id: IDS.iago });
  t.true(there[0]!.flags.includes('read'), 'read before the move, read after it');
  t.deepEqual(
    (await messagesIn(othello, topicOf(a, 'plans'))).map((m) => m.id),
    [second],
  );
  const single = await ok(othello, 'GET', `/messages/${first}`);
  t.is((single.message as Body).stream_id, b);

  const history = (await ok(hamlet, 'GET', `/messages/${first}/history`)).message_history as Body[];
  t.is(history.length, 2);
  t.like(history[1], { prev_stream: a, stream: b, topic: 'plans', user_id: IDS.hamlet, content: 'first' });
  t.false('prev_topic' in history[1]!);
});

test('change_later and change_all move the topic, under a new name when one is given', async (t) => {
  const { iago, hamlet } = t.context;
  const [a, b] = [await channel(iago, 'mv later a', members), await channel(iago, 'mv later b', members)];
  const ids = [];
  for (const content of ['one', 'two', 'three']) ids.push(await send(hamlet, a, 'thread', content));
  await ok(iago, 'PATCH', `/messages/${ids[1]}`, {
    stream_id: b,
    topic: 'split',
    propagate_mode: 'change_later',
    ...quiet,
  });
  t.deepEqual(
    (await messagesIn(hamlet, topicOf(b, 'split'))).map((m) => m.id),
    [ids[1], ids[2]],
  );
  t.deepEqual(
    (await messagesIn(hamlet, topicOf(a, 'thread'))).map((m) => m.id),
    [ids[0]],
  );
  const history = (await ok(hamlet, 'GET', `/messages/${ids[2]}/history`)).message_history as Body[];
  t.like(history.at(-1), { prev_stream: a, stream: b, prev_topic: 'thread', topic: 'split' });

  // change_all from the moved part takes every message of its topic back.
  await ok(iago, 'PATCH', `/messages/${ids[2]}`, { stream_id: a, propagate_mode: 'change_all', ...quiet });
  t.deepEqual(
    (await messagesIn(hamlet, topicOf(a, 'split'))).map((m) => m.id),
    [ids[1], ids[2]],
  );
  // Nothing is left in b but the notice of its creation.
  t.deepEqual(
    (await messagesIn(hamlet, channelOf(b))).map((m) => m.subject),
    ['channel events'],
  );
});

test('notices in the old and the new topic, in the original wording', async (t) => {
  const { iago, hamlet } = t.context;
  const [a, b] = [await channel(iago, 'mv notice a', members), await channel(iago, 'mv notice b', members)];
  const who = `@_**Iago|${IDS.iago}**`;
  const whole = await send(hamlet, a, 'whole', 'all of it');
  await ok(iago, 'PATCH', `/messages/${whole}`, {
    stream_id: b,
    propagate_mode: 'change_all',
    send_notification_to_old_thread: true,
  });
  const notices = async (id: number, topic: string) =>
    (await messagesIn(hamlet, topicOf(id, topic))).filter((m) => m.sender_email !== 'hamlet@zulip.com');
  t.deepEqual(
    (await notices(b, 'whole')).map((m) => m.content),
    [`This topic was moved here from #**mv notice a>whole** by ${who}.`],
  );
  t.deepEqual(
    (await notices(a, 'whole')).map((m) => m.content),
    [`This topic was moved to #**mv notice b>whole** by ${who}.`],
  );

  // One message of a topic, into a topic that already has messages.
  const kept = await send(hamlet, a, 'part', 'stays');
  const one = await send(hamlet, a, 'part', 'goes');
  await send(hamlet, b, 'busy', 'already here');
  await ok(iago, 'PATCH', `/messages/${one}`, { stream_id: b, topic: 'busy', send_notification_to_old_thread: true });
  const arrived = (await notices(b, 'busy')).map((m) => m.content);
  t.is(arrived.length, 1);
  t.regex(arrived[0]!, /^\[A message\]\(.*\/#narrow\/channel\/\d+-mv-notice-b\/topic\/busy\/near\/\d+\) was moved/);
  t.true(arrived[0]!.endsWith(` was moved here from #**mv notice a>part** by ${who}.`));
  t.deepEqual(
    (await notices(a, 'part')).map((m) => m.content),
    [`A message was moved from this topic to #**mv notice b>busy** by ${who}.`],
  );
  t.deepEqual((await messagesIn(hamlet, topicOf(a, 'part'))).map((m) => m.id).slice(0, 1), [kept]);
});

test('stream_id of the same channel is a move within it', async (t) => {
  const { iago, hamlet } = t.context;
  const a = await channel(iago, 'mv same', members);
  const id = await send(hamlet, a, 'here', 'x');
  await ok(hamlet, 'PATCH', `/messages/${id}`, { stream_id: a, topic: 'there', ...quiet });
  t.deepEqual(
    (await messagesIn(hamlet, topicOf(a, 'there'))).map((m) => m.id),
    [id],
  );
  const history = (await ok(hamlet, 'GET', `/messages/${id}/history`)).message_history as Body[];
  t.like(history.at(-1), { prev_topic: 'here', topic: 'there' });
  t.false('prev_stream' in history.at(-1)!);
});

test('a protected-history destination shows moved messages to its current subscribers', async (t) => {
  const { iago, hamlet, othello } = t.context;
  const a = await channel(iago, 'mv prot a', members);
  const id = await send(hamlet, a, 'old news', 'sent before anyone joined b');
  const b = await channel(iago, 'mv prot b', [IDS.iago], { invite_only: true, history_public_to_subscribers: false });
  await send(iago, b, 'hello', 'first in b');
  await ok(iago, 'POST', '/users/me/subscriptions', {
    subscriptions: JSON.stringify([{ name: 'mv prot b' }]),
    principals: JSON.stringify([IDS.othello]),
  });
  await ok(iago, 'PATCH', `/messages/${id}`, { stream_id: b, ...quiet });
  t.deepEqual(
    (await messagesIn(othello, topicOf(b, 'old news'))).map((m) => m.id),
    [id],
  );
  // hamlet is not subscribed to the private destination: the message is gone for him.
  const lost = await call(hamlet, 'GET', `/messages/${id}`);
  t.is(lost.body.code, 'BAD_REQUEST');
});

test('a move interrupted after the import is finished by the source, without duplicates', async (t) => {
  const { server, iago, hamlet } = t.context;
  const { actors } = server.server.node;
  const [a, b] = [await channel(iago, 'mv crash a', members), await channel(iago, 'mv crash b', members)];
  const id = await send(hamlet, a, 'crash', 'survives');
  const role = ROLES.administrator;
  const actor = {
    realm: 'zulip',
    user_id: IDS.iago,
    email: 'iago@zulip.com',
    role,
    is_bot: false,
    full_name: 'Iago',
    can_create_users: false,
  };
  const target = await actors.ask(channelAddress('zulip', b), { type: 'channel.info' });
  const settings = await actors.ask(realmAddress('zulip'), { type: 'realm.settings' });
  // What the edge does first, and then it dies before telling the source.
  const begun = await actors.ask(channelAddress('zulip', a), {
    type: 'message.moveOut',
    actor: { ...actor, groups: systemGroupsOf(role) },
    message_id: id,
    target,
    propagate_mode: 'change_one',
    settings,
    guest_ids: [],
  });
  const moveIn = { type: 'message.moveIn', move: begun.move } as const;
  await actors.ask(channelAddress('zulip', b), moveIn, { idempotencyKey: `move:${begun.move.id}` });
  t.is(((await ok(hamlet, 'GET', `/messages/${id}`)).message as Body).stream_id, b);
  // The source's recovery: the target is asked again, imports nothing twice, and tells the source to finish.
  await actors.ask(channelAddress('zulip', b), { ...moveIn, notify_source: true });
  // The topic's messages only: each channel also has the notice of its creation.
  const source = topicOf(a, 'crash');
  await waitFor(async () => (await messagesIn(hamlet, source)).length === 0, { what: 'the source letting go' });
  t.deepEqual(
    (await messagesIn(hamlet, topicOf(b, 'crash'))).map((m) => m.id),
    [id],
  );
});
