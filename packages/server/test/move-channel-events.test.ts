import anyTest, { type TestFn } from 'ava';
import { assertEvents, assertResponse, type ChatClient } from '@chat/testkit';
import { TestServer } from './support.js';
import { channel, channelOf, IDS, messagesIn, ok, send, topicOf, type Body } from './move-support.js';

/**
 * The events of a move between channels, received through real queues
 * (POST /register, GET /events) and checked against the reference's
 * schemas: update_message for those who keep the messages, delete_message
 * for those who lose them, and the source's new first_message_id.
 */
type Name = 'iago' | 'hamlet' | 'othello' | 'cordelia' | 'polonius';
const test = anyTest as TestFn<{ server: TestServer } & Record<Name, ChatClient>>;

test.before(async (t) => {
  const server = await TestServer.start({ heartbeatMs: 400 });
  t.context.server = server;
  for (const name of ['iago', 'hamlet', 'othello', 'cordelia', 'polonius'] as const) {
    t.context[name] = await server.login(`${name}@zulip.com`);
  }
});
test.after.always(async (t) => {
  await t.context.server?.stop();
});

type Event = Body & { id: number; type: string };
interface Queue {
  client: ChatClient;
  queue_id: string;
  cursor: number;
  seen: Event[];
}

async function register(client: ChatClient): Promise<Queue> {
  const types = JSON.stringify(['update_message', 'delete_message', 'stream']);
  const capabilities = JSON.stringify({ bulk_message_deletion: true });
  const reply = await client.post<Body>('/register', { event_types: types, client_capabilities: capabilities });
  if (reply.status !== 200) throw new Error(`register: ${JSON.stringify(reply.body)}`);
  assertResponse('POST', '/register', 200, reply.body);
  return { client, queue_id: reply.body.queue_id as string, cursor: reply.body.last_event_id as number, seen: [] };
}

/** Polls (every event checked against the reference) until one passes the test. */
async function next(queue: Queue, test: (e: Event) => boolean): Promise<Event> {
  for (;;) {
    const found = queue.seen.find(test);
    if (found) return found;
    const params = { queue_id: queue.queue_id, last_event_id: queue.cursor };
    const reply = await queue.client.get<Body>('/events', params);
    if (reply.status !== 200) throw new Error(`events: ${JSON.stringify(reply.body)}`);
    const events = reply.body.events as Event[];
    assertEvents(events);
    queue.seen.push(...events);
    queue.cursor = events.at(-1)?.id ?? queue.cursor;
  }
}

const about = (ids: number[], type: string) => (e: Event) =>
  e.type === type && JSON.stringify(e.message_ids) === JSON.stringify(ids);

test('a move to a private channel: update_message to its readers, delete_message to the others', async (t) => {
  const { iago, hamlet, othello, cordelia, polonius } = t.context;
  const a = await channel(iago, 'ev mv a', [IDS.iago, IDS.hamlet, IDS.othello, IDS.polonius]);
  const b = await channel(iago, 'ev mv b', [IDS.iago, IDS.hamlet, IDS.cordelia], { invite_only: true });
  const queues = {
    hamlet: await register(hamlet),
    othello: await register(othello),
    cordelia: await register(cordelia),
    polonius: await register(polonius),
  };
  const first = await send(othello, a, 'moving', 'one');
  const second = await send(hamlet, a, 'moving', 'two');
  await ok(hamlet, 'POST', '/messages/flags', { messages: JSON.stringify([first]), op: 'add', flag: 'read' });
  await ok(iago, 'PATCH', `/messages/${second}`, {
    stream_id: b,
    topic: 'moved',
    propagate_mode: 'change_all',
    send_notification_to_new_thread: false,
  });
  const ids = [first, second];
  const update = {
    type: 'update_message',
    user_id: IDS.iago,
    message_id: second,
    message_ids: ids,
    stream_id: a,
    stream_name: 'ev mv a',
    new_stream_id: b,
    orig_subject: 'moving',
    subject: 'moved',
    propagate_mode: 'change_all',
    rendering_only: false,
  };
  const forHamlet = await next(queues.hamlet, about(ids, 'update_message'));
  t.like(forHamlet, update);
  // The flags are those of `message_id`: hamlet's own message, read.
  t.deepEqual(forHamlet.flags, ['read']);
  t.like(await next(queues.cordelia, about(ids, 'update_message')), update);
  const gone = { type: 'delete_message', message_ids: ids, message_type: 'stream', stream_id: a, topic: 'moving' };
  t.like(await next(queues.othello, about(ids, 'delete_message')), gone);
  t.like(await next(queues.polonius, about(ids, 'delete_message')), gone);
  // Those were a's only messages: its first_message_id is now none ...
  const oldest = (id: number) => (e: Event) =>
    e.type === 'stream' && e.property === 'first_message_id' && e.stream_id === id;
  t.like(await next(queues.hamlet, oldest(a)), { op: 'update', value: null });
  // ... and b's oldest message is now the first moved one.
  t.like(await next(queues.cordelia, oldest(b)), { op: 'update', value: first });
  t.false(queues.othello.seen.some((e) => e.type === 'update_message' && e.message_id === second));

  // hamlet had read othello's message in a: it is still read in b; cordelia never had it there.
  const there = await messagesIn(hamlet, topicOf(b, 'moved'));
  t.deepEqual(
    there.map((m) => [m.id, m.flags.includes('read')]),
    [
      [first, true],
      [second, true],
    ],
  );
  t.deepEqual(await messagesIn(hamlet, channelOf(a)), []);
});

test('a move to a public channel: guests who cannot follow lose the messages, members keep them', async (t) => {
  const { iago, hamlet, othello, polonius } = t.context;
  const a = await channel(iago, 'ev pub a', [IDS.iago, IDS.hamlet, IDS.othello, IDS.polonius]);
  const b = await channel(iago, 'ev pub b', [IDS.iago, IDS.hamlet]);
  const [qo, qp] = [await register(othello), await register(polonius)];
  const id = await send(hamlet, a, 'pub', 'x');
  await ok(iago, 'PATCH', `/messages/${id}`, { stream_id: b, send_notification_to_new_thread: false });
  const update = await next(qo, about([id], 'update_message'));
  t.like(update, { stream_id: a, new_stream_id: b, orig_subject: 'pub', propagate_mode: 'change_one' });
  // Same topic name: no subject, no topic_links.
  t.false('subject' in update);
  t.false('topic_links' in update);
  t.like(await next(qp, about([id], 'delete_message')), { stream_id: a, topic: 'pub' });
  // othello is not subscribed to b, which is public: he still reads the message there.
  t.deepEqual(
    (await messagesIn(othello, topicOf(b, 'pub'))).map((m) => m.id),
    [id],
  );
});
