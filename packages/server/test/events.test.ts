import anyTest, { type TestFn } from 'ava';
import { assertEvents, assertResponse, type ChatClient } from '@chat/testkit';
import { TestServer } from './support.js';

/**
 * The event system as a client sees it: register, long-poll, heartbeats,
 * collection, and every event checked against the reference's schemas.
 */
const test = anyTest as TestFn<{ server: TestServer; iago: ChatClient; hamlet: ChatClient; othello: ChatClient }>;

test.before(async (t) => {
  t.context.server = await TestServer.start({ heartbeatMs: 400, queueMaxEvents: 60 });
  t.context.iago = await t.context.server.login('iago@zulip.com');
  t.context.hamlet = await t.context.server.login('hamlet@zulip.com');
  t.context.othello = await t.context.server.login('othello@zulip.com');
});
test.after.always(async (t) => {
  await t.context.server?.stop();
});

type Body = Record<string, unknown>;
type Event = Body & { id: number; type: string };

async function register(
  client: ChatClient,
  params: Body = {},
): Promise<Body & { queue_id: string; last_event_id: number }> {
  const reply = await client.post<Body>('/register', params);
  if (reply.status !== 200) throw new Error(`register: ${JSON.stringify(reply.body)}`);
  assertResponse('POST', '/register', 200, reply.body);
  return reply.body as unknown as Body & { queue_id: string; last_event_id: number };
}

/** One long poll; every event is checked against the reference. */
async function poll(client: ChatClient, queueId: string, last: number, dontBlock = false): Promise<Event[]> {
  const reply = await client.get<Body>('/events', { queue_id: queueId, last_event_id: last, dont_block: dontBlock });
  if (reply.status !== 200) throw new Error(`events: ${reply.status} ${JSON.stringify(reply.body)}`);
  const events = reply.body.events as Event[];
  assertEvents(events);
  return events;
}

/** Polls until an event passes the test; other tests' events and heartbeats go by. */
async function next(client: ChatClient, queueId: string, last: number, test: (e: Event) => boolean): Promise<Event> {
  for (let cursor = last; ;) {
    const events = await poll(client, queueId, cursor);
    const found = events.find(test);
    if (found) return found;
    cursor = events.at(-1)?.id ?? cursor;
  }
}

const messageWithId = (id: () => number | undefined) => (e: Event) =>
  e.type === 'message' && (e.message as Body).id === id();

const send = (client: ChatClient, params: Body) => client.post<{ id: number }>('/messages', params);

test('a message sent by another user reaches a blocked poll, with flags and the sender', async (t) => {
  const { iago, hamlet } = t.context;
  const queue = await register(iago, { event_types: JSON.stringify(['message']) });
  let id: number | undefined;
  const waiting = next(
    iago,
    queue.queue_id,
    queue.last_event_id,
    messageWithId(() => id),
  );
  const sent = await send(hamlet, { type: 'stream', to: 'Denmark', topic: 'events', content: 'hi @**Iago**' });
  id = sent.body.id;
  const event = await waiting;
  const message = event.message as Body;
  t.is(message.id, sent.body.id);
  t.is(message.sender_email, 'hamlet@zulip.com');
  t.is(message.display_recipient, 'Denmark');
  t.is(message.content, 'hi @**Iago**');
  t.deepEqual(event.flags, ['mentioned']);
  t.false('local_message_id' in event);
});

test('the sending queue gets local_message_id back; the sender sees its message read', async (t) => {
  const { iago } = t.context;
  const queue = await register(iago, { event_types: JSON.stringify(['message']), apply_markdown: true });
  const sent = await send(iago, {
    type: 'stream',
    to: 'Denmark',
    topic: 'echo',
    content: '**bold**',
    queue_id: queue.queue_id,
    local_id: '12.01',
  });
  const event = await next(
    iago,
    queue.queue_id,
    queue.last_event_id,
    messageWithId(() => sent.body.id),
  );
  t.is(event.local_message_id, '12.01');
  t.deepEqual(event.flags, ['read']);
  t.is((event.message as Body).content, '<p><strong>bold</strong></p>');
});

test('direct messages reach their participants only', async (t) => {
  const { iago, hamlet, othello } = t.context;
  const [qi, qo] = [await register(iago), await register(othello)];
  const sent = await send(hamlet, { type: 'direct', to: JSON.stringify(['iago@zulip.com']), content: 'psst' });
  const event = await next(
    iago,
    qi.queue_id,
    qi.last_event_id,
    messageWithId(() => sent.body.id),
  );
  t.is((event.message as Body).type, 'private');
  const others = await poll(othello, qo.queue_id, qo.last_event_id, true);
  t.false(others.some((e) => e.type === 'message' && (e.message as Body).id === sent.body.id));
});

test('event_types and narrow filter at the queue', async (t) => {
  const { iago, hamlet } = t.context;
  const none = await register(iago, { event_types: JSON.stringify(['update_message']) });
  const verona = await register(iago, { narrow: JSON.stringify([['stream', 'Verona']]) });
  await send(hamlet, { type: 'stream', to: 'Denmark', topic: 'filters', content: 'not for Verona' });
  const inVerona = await send(hamlet, { type: 'stream', to: 'Verona', topic: 'filters', content: 'for Verona' });
  const event = await next(iago, verona.queue_id, verona.last_event_id, (e) => e.type === 'message');
  t.is((event.message as Body).id, inVerona.body.id);
  t.deepEqual(await poll(iago, none.queue_id, none.last_event_id, true), []);
});

test('a waiting poll is answered by a heartbeat when nothing happens', async (t) => {
  const queue = await register(t.context.othello, { event_types: JSON.stringify(['update_message']) });
  const started = Date.now();
  const events = await poll(t.context.othello, queue.queue_id, queue.last_event_id);
  t.deepEqual(
    events.map((e) => e.type),
    ['heartbeat'],
  );
  t.true(Date.now() - started >= 300, 'answered only after the heartbeat interval');
});

test('an idle queue is collected: BAD_EVENT_QUEUE_ID with the queue id', async (t) => {
  // Its own server, so that the short idle timeout collects no other test's queue.
  const server = await TestServer.start({ queueIdleMs: 500 });
  try {
    const othello = await server.login('othello@zulip.com');
    const kept = await register(othello, { event_types: JSON.stringify(['message']) });
    const idle = await register(othello, { event_types: JSON.stringify(['message']) });
    // Polling keeps a queue alive; the other one is left alone.
    for (let i = 0; i < 6; i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      t.is((await othello.get('/events', { queue_id: kept.queue_id, dont_block: true })).status, 200);
    }
    const reply = await othello.get<Body>('/events', { queue_id: idle.queue_id, last_event_id: -1 });
    t.is(reply.status, 400);
    t.like(reply.body, { result: 'error', code: 'BAD_EVENT_QUEUE_ID', queue_id: idle.queue_id });
  } finally {
    await server.stop();
  }
});

test('DELETE /events frees the queue; an unknown or foreign queue is BAD_EVENT_QUEUE_ID', async (t) => {
  const { othello, hamlet } = t.context;
  const queue = await register(othello);
  const foreign = await hamlet.get<Body>('/events', { queue_id: queue.queue_id, dont_block: true });
  t.like(foreign.body, { code: 'BAD_EVENT_QUEUE_ID' });
  t.is((await othello.delete('/events', { queue_id: queue.queue_id })).status, 200);
  const after = await othello.get<Body>('/events', { queue_id: queue.queue_id, dont_block: true });
  t.like(after.body, { code: 'BAD_EVENT_QUEUE_ID' });
  const unknown = await othello.get<Body>('/events', { queue_id: 'no-such-queue', dont_block: true });
  t.is(unknown.status, 400);
  t.like(unknown.body, { code: 'BAD_EVENT_QUEUE_ID', queue_id: 'no-such-queue' });
});

test('acknowledged events are pruned; asking again from before them is an error', async (t) => {
  const { iago, hamlet } = t.context;
  const queue = await register(iago, { event_types: JSON.stringify(['message']) });
  await send(hamlet, { type: 'stream', to: 'Denmark', topic: 'prune', content: 'one' });
  const first = await next(iago, queue.queue_id, -1, (e) => e.type === 'message');
  await send(hamlet, { type: 'stream', to: 'Denmark', topic: 'prune', content: 'two' });
  const second = await next(iago, queue.queue_id, first.id, (e) => e.type === 'message');
  t.true(second.id > first.id);
  const stale = await iago.get<Body>('/events', { queue_id: queue.queue_id, last_event_id: -1, dont_block: true });
  t.is(stale.status, 400);
  t.like(stale.body, { code: 'BAD_REQUEST' });
});

test('a queue its client stopped reading is collected at its cap', async (t) => {
  const { server, hamlet } = t.context;
  // Only Cordelia hears this flood, so the other tests' queues stay below the cap.
  const cordelia = await server.login('cordelia@zulip.com');
  const queue = await register(cordelia, { event_types: JSON.stringify(['message']) });
  const to = JSON.stringify(['cordelia@zulip.com']);
  for (let i = 0; i < 61; i++) await send(hamlet, { type: 'direct', to, content: `${i}` });
  const reply = await cordelia.get<Body>('/events', { queue_id: queue.queue_id, last_event_id: -1, dont_block: true });
  t.like(reply.body, { code: 'BAD_EVENT_QUEUE_ID' });
});

test('register returns the snapshot sections asked for, with unread messages', async (t) => {
  const { othello, hamlet } = t.context;
  const sent = await send(hamlet, { type: 'direct', to: JSON.stringify(['othello@zulip.com']), content: 'unread' });
  const snapshot = await register(othello, {
    fetch_event_types: JSON.stringify(['message', 'update_message_flags', 'subscription', 'realm_user', 'realm']),
  });
  t.is(snapshot.zulip_feature_level, 420);
  t.true((snapshot.max_message_id as number) >= sent.body.id);
  const unread = snapshot.unread_msgs as { pms: Array<{ other_user_id: number; unread_message_ids: number[] }> };
  t.true(unread.pms.some((p) => p.unread_message_ids.includes(sent.body.id)));
  t.true((snapshot.subscriptions as Body[]).length > 0);
  t.true((snapshot.realm_users as Body[]).some((u) => u.email === 'hamlet@zulip.com'));
  t.is(snapshot.max_message_length, 10000);
  const slim = await register(othello, { fetch_event_types: JSON.stringify(['message']) });
  t.false('subscriptions' in slim);
  t.false('unread_msgs' in slim);
});

test('snapshot plus events is the final state, with writers racing the registrations', async (t) => {
  const { server, hamlet, iago } = t.context;
  // Only Prospero receives these messages, so no other test's traffic mixes in.
  const prospero = await server.login('prospero@zulip.com');
  const to = JSON.stringify(['prospero@zulip.com']);
  const writers = [hamlet, iago].map(async (writer, w) => {
    for (let i = 0; i < 25; i++) await send(writer, { type: 'direct', to, content: `race ${w}.${i}` });
  });
  const unreadIn = (snapshot: Body) =>
    (snapshot.unread_msgs as { pms: Array<{ unread_message_ids: number[] }> }).pms.flatMap((p) => p.unread_message_ids);
  const clients = Array.from({ length: 6 }, async (_, i) => {
    await new Promise((resolve) => setTimeout(resolve, i * 40));
    const snapshot = await register(prospero, {
      event_types: JSON.stringify(['message', 'update_message_flags']),
    });
    return { snapshot, unread: new Set(unreadIn(snapshot)) };
  });
  const registered = await Promise.all(clients);
  await Promise.all(writers);
  const final = new Set(
    unreadIn(await register(prospero, { fetch_event_types: JSON.stringify(['message', 'update_message_flags']) })),
  );
  for (const { snapshot, unread } of registered) {
    // Drain the queue: every event after last_event_id, until it is quiet.
    let cursor = snapshot.last_event_id;
    for (;;) {
      const events = await poll(prospero, snapshot.queue_id, cursor, true);
      if (events.length === 0) break;
      // Other tests talk in channels Prospero is in: only direct messages count here.
      for (const event of events.filter((e) => e.type === 'message' && (e.message as Body).type === 'private')) {
        const id = (event.message as Body).id as number;
        t.false(unread.has(id), `message ${id} is both in the snapshot and in the queue`);
        unread.add(id);
      }
      cursor = events.at(-1)!.id;
    }
    t.deepEqual([...unread].sort(), [...final].sort());
  }
  t.is(final.size, 50);
});
