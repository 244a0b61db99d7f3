import type { ChatClient } from '@chat/testkit';
import { withServer, type Logins } from './context.js';
import { newPerson, type Person } from './people.js';
import { next, of, register } from './queues.js';
import { bodyOf, refused, succeeds, type Body } from './replies.js';

/** Marking many messages at once: by narrow, a channel, a topic, or everything. */
const test = withServer(['iago']);

type T = { context: Logins<'iago'> };
let counter = 0;

/**
 * A new channel with these subscribers, made by its first one; the members have read the notification
 * bot's notice of its creation (its creator has it read already), so that their unread messages are the test's.
 */
async function channel(owner: Person, members: Person[]): Promise<{ id: number; name: string }> {
  const name = `marking ${++counter} ${Date.now()}`;
  const subscribers = JSON.stringify([owner, ...members].map((p) => p.user_id));
  const { id } = await bodyOf<{ id: number }>(owner.client.post('/channels/create', { name, subscribers }));
  for (const member of members) await bodyOf(member.client.post('/mark_stream_as_read', { stream_id: id }));
  return { id, name };
}

const send = async (from: ChatClient, to: string, topic: string, content = 'hello') =>
  (await bodyOf<{ id: number }>(from.post('/messages', { type: 'stream', to, topic, content }))).id;

async function unreadIds(client: ChatClient, narrow: unknown[] = []): Promise<number[]> {
  const { messages } = await bodyOf<{ messages: Array<{ id: number }> }>(
    client.get('/messages', {
      anchor: 'newest',
      num_before: 100,
      num_after: 0,
      narrow: JSON.stringify([...narrow, { operator: 'is', operand: 'unread' }]),
    }),
  );
  return messages.map((m) => m.id);
}

const byNarrow = (client: ChatClient, params: Body) =>
  client.post('/messages/flags/narrow', { narrow: '[]', num_before: 0, num_after: 0, ...params });

async function pair(t: T) {
  const [alice, bob] = await Promise.all([newPerson(t.context, 'Alice Marker'), newPerson(t.context, 'Bob Marker')]);
  return [alice!, bob!] as const;
}

test('flags by narrow update the range around the anchor and say what they did', async (t) => {
  const [alice, bob] = await pair(t);
  const place = await channel(alice, [bob]);
  const ids = [];
  for (let i = 0; i < 4; i++) ids.push(await send(alice.client, place.name, 'range'));
  const queue = await register(bob.client, { event_types: ['update_message_flags'] });
  // The topic's messages only: the channel also has the notice of its creation.
  const narrow = JSON.stringify([
    { operator: 'channel', operand: place.id },
    { operator: 'topic', operand: 'range' },
  ]);
  const first = await succeeds<Body>(
    'POST',
    '/messages/flags/narrow',
    byNarrow(bob.client, { anchor: ids[1], num_before: 1, num_after: 1, narrow, op: 'add', flag: 'read' }),
  );
  t.deepEqual(first, {
    result: 'success',
    msg: '',
    processed_count: 3,
    updated_count: 3,
    first_processed_id: ids[0],
    last_processed_id: ids[2],
    found_oldest: true,
    found_newest: false,
  });
  const event = await next(
    queue,
    of('update_message_flags', 'add', (e) => e.flag === 'read'),
  );
  t.deepEqual(event.messages, ids.slice(0, 3));
  t.deepEqual(await unreadIds(bob.client, [{ operator: 'channel', operand: place.id }]), [ids[3]]);
  // Again from the oldest: everything is processed, only the last message changes.
  const again = await succeeds<Body>(
    'POST',
    '/messages/flags/narrow',
    byNarrow(bob.client, { anchor: 'oldest', num_after: 10, narrow, op: 'add', flag: 'read' }),
  );
  t.like(again, { processed_count: 4, updated_count: 1, found_oldest: true, found_newest: true });
  // Excluding the anchor at the end of the range; starring.
  const starred = await succeeds<Body>(
    'POST',
    '/messages/flags/narrow',
    byNarrow(bob.client, {
      anchor: ids[3],
      include_anchor: false,
      num_before: 2,
      narrow,
      op: 'add',
      flag: 'starred',
    }),
  );
  t.like(starred, { processed_count: 2, updated_count: 2, first_processed_id: ids[1], last_processed_id: ids[2] });
  const star = await next(
    queue,
    of('update_message_flags', 'add', (e) => e.flag === 'starred'),
  );
  t.deepEqual(star.messages, [ids[1], ids[2]]);
});

test('flags by narrow refuse what the original refuses', async (t) => {
  const [alice] = await pair(t);
  const both = { anchor: 'newest', include_anchor: false, num_before: 1, num_after: 1, op: 'add', flag: 'read' };
  await refused(t, byNarrow(alice.client, both), 'The anchor can only be excluded at an end of the range');
  await refused(
    t,
    byNarrow(alice.client, { anchor: 'newest', op: 'add', flag: 'mentioned' }),
    "Flag not editable: 'mentioned'",
  );
  await refused(t, byNarrow(alice.client, { anchor: 'newest', op: 'add', flag: 'shiny' }), "Invalid flag: 'shiny'");
  await refused(t, byNarrow(alice.client, { anchor: 'middle', op: 'add', flag: 'read' }), 'Invalid anchor');
  // An empty range is a success with nothing processed.
  const empty = await succeeds<Body>(
    'POST',
    '/messages/flags/narrow',
    byNarrow(alice.client, {
      anchor: 'newest',
      narrow: JSON.stringify([{ operator: 'search', operand: 'nothing matches this' }]),
      op: 'add',
      flag: 'read',
    }),
  );
  t.like(empty, { processed_count: 0, updated_count: 0, first_processed_id: null, last_processed_id: null });
});

test('marking a channel read leaves other channels unread', async (t) => {
  const [alice, bob] = await pair(t);
  const [one, two] = [await channel(alice, [bob]), await channel(alice, [bob])];
  const read = [await send(alice.client, one.name, 'a'), await send(alice.client, one.name, 'b')];
  const kept = await send(alice.client, two.name, 'c');
  const queue = await register(bob.client, { event_types: ['update_message_flags'] });
  await succeeds('POST', '/mark_stream_as_read', bob.client.post('/mark_stream_as_read', { stream_id: one.id }));
  t.deepEqual((await next(queue, of('update_message_flags', 'add'))).messages, read);
  t.deepEqual(await unreadIds(bob.client), [kept]);
  const { snapshot } = await register(bob.client, { fetch_event_types: ['message', 'update_message_flags'] });
  const unread = snapshot.unread_msgs as { streams: Array<{ stream_id: number }> };
  t.deepEqual(
    unread.streams.map((s) => s.stream_id),
    [two.id],
  );
});

test("marking a topic read leaves the channel's other topics unread; an unknown topic is refused", async (t) => {
  const [alice, bob] = await pair(t);
  const place = await channel(alice, [bob]);
  const inTopic = [await send(alice.client, place.name, 'Lunch'), await send(alice.client, place.name, 'lunch')];
  const other = await send(alice.client, place.name, 'dinner');
  const queue = await register(bob.client, { event_types: ['update_message_flags'] });
  await succeeds(
    'POST',
    '/mark_topic_as_read',
    bob.client.post('/mark_topic_as_read', { stream_id: place.id, topic_name: 'LUNCH' }),
  );
  t.deepEqual((await next(queue, of('update_message_flags', 'add'))).messages, inTopic);
  t.deepEqual(await unreadIds(bob.client), [other]);
  await refused(
    t,
    bob.client.post('/mark_topic_as_read', { stream_id: place.id, topic_name: 'breakfast' }),
    "No such topic 'breakfast'",
  );
});

test('a channel the caller may not read is an invalid channel', async (t) => {
  const [alice, bob] = await pair(t);
  const { id } = await bodyOf<{ id: number }>(
    alice.client.post('/channels/create', {
      name: `secret marking ${Date.now()}`,
      subscribers: JSON.stringify([alice.user_id]),
      invite_only: true,
    }),
  );
  await refused(t, bob.client.post('/mark_stream_as_read', { stream_id: id }), 'Invalid channel ID');
  await refused(t, bob.client.post('/mark_topic_as_read', { stream_id: id, topic_name: 'x' }), 'Invalid channel ID');
  await refused(t, bob.client.post('/mark_stream_as_read', { stream_id: 999_999 }), 'Invalid channel ID');
});

test('marking everything read covers channels and direct messages', async (t) => {
  const [alice, bob] = await pair(t);
  const place = await channel(alice, [bob]);
  const ids = [];
  for (let i = 0; i < 3; i++) ids.push(await send(alice.client, place.name, `topic ${i}`));
  const dm = await bodyOf<{ id: number }>(
    alice.client.post('/messages', { type: 'direct', to: JSON.stringify([bob.user_id]), content: 'psst' }),
  );
  t.true((await unreadIds(bob.client)).includes(dm.id));
  const done = await succeeds<Body>('POST', '/mark_all_as_read', bob.client.post('/mark_all_as_read'));
  t.true(done.complete);
  t.deepEqual(await unreadIds(bob.client), []);
  const { snapshot } = await register(bob.client, { fetch_event_types: ['message', 'update_message_flags'] });
  t.is((snapshot.unread_msgs as { count: number }).count, 0);
});

test('marking unread by narrow leaves channels the caller left, and names them', async (t) => {
  const [alice, bob] = await pair(t);
  const place = await channel(alice, [bob]);
  const id = await send(alice.client, place.name, 'left behind');
  await bodyOf(bob.client.post('/messages/flags', { messages: JSON.stringify([id]), op: 'add', flag: 'read' }));
  await bodyOf(bob.client.delete('/users/me/subscriptions', { subscriptions: JSON.stringify([place.name]) }));
  const narrow = JSON.stringify([{ operator: 'channel', operand: place.id }]);
  const reply = await succeeds<Body>(
    'POST',
    '/messages/flags/narrow',
    byNarrow(bob.client, { anchor: id, narrow, op: 'remove', flag: 'read' }),
  );
  t.like(reply, { processed_count: 1, updated_count: 0, ignored_because_not_subscribed_channels: [place.id] });
  // Adding the flag back is no such case: the field is absent.
  const added = await succeeds<Body>(
    'POST',
    '/messages/flags/narrow',
    byNarrow(bob.client, { anchor: id, narrow, op: 'add', flag: 'starred' }),
  );
  t.is(added.ignored_because_not_subscribed_channels, undefined);
});
