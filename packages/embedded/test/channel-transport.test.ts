import { MessageChannel, type MessagePort } from 'node:worker_threads';
import test from 'ava';
import { Carried, fromWire, NoResponders, toWire, TransportClosed, TransportTimeout } from '@chat/runtime';
import { ChannelTransport, InProcessTransport, POLLS_PER_TURN, serveChannel, type Channel } from '../src/index.js';
import { bytes, deferred, text } from './helpers.js';

/** A MessagePort seen as a channel (structured clone, as a worker's IPC channel with advanced serialization). */
const channelOf = (port: MessagePort): Channel => ({
  send: (message, _callback) => port.postMessage(message),
  on: (_event, listener) => port.on('message', listener),
});

function pair(calls = {}) {
  const { port1, port2 } = new MessageChannel();
  const inside = new InProcessTransport();
  serveChannel(channelOf(port1), inside, calls);
  const worker = new ChannelTransport(channelOf(port2));
  const close = async () => {
    await worker.close();
    await inside.close();
    port1.close();
  };
  return { inside, worker, close };
}

test('an ask crosses as JSON text and its reply comes back as a value of its own', async (t) => {
  const { inside, worker, close } = pair();
  inside.subscribe('actor.realm.0', (msg) => {
    t.true(msg.data instanceof Carried, 'the in-process side gets a value, not bytes');
    const asked = fromWire<{ n: number }>(msg.data);
    msg.respond?.(toWire(inside, { twice: asked.n * 2 }));
  });
  const reply = await worker.request('actor.realm.0', toWire(worker, { n: 21 }), 1000);
  t.deepEqual(fromWire(reply), { twice: 42 });
  await close();
});

test('bytes cross too, and a tell reaches every subscriber', async (t) => {
  const { inside, worker, close } = pair();
  const got = deferred<string>();
  inside.subscribe('actor.user.>', (msg) => got.resolve(text(msg.data)));
  worker.publish('actor.user.3', bytes('hello'));
  t.is(await got.promise, 'hello');
  await close();
});

test('failures keep their kind: no responders, a timeout of the other side', async (t) => {
  const { inside, worker, close } = pair();
  await t.throwsAsync(worker.request('actor.nobody.1', bytes('x'), 1000), { instanceOf: NoResponders });
  inside.subscribe('actor.slow.1', () => {});
  await t.throwsAsync(worker.request('actor.slow.1', bytes('x'), 50), { instanceOf: TransportTimeout });
  await close();
});

test('a closed transport, on either side, fails an ask with TransportClosed: waiting, and asked after', async (t) => {
  const { inside, worker, close } = pair();
  inside.subscribe('actor.slow.1', () => {});
  const waiting = worker.request('actor.slow.1', bytes('x'), 60_000);
  await inside.close();
  await t.throwsAsync(waiting, { instanceOf: TransportClosed });
  await t.throwsAsync(worker.request('actor.slow.1', bytes('x'), 1000), { instanceOf: TransportClosed });
  const held = worker.request('actor.slow.1', bytes('x'), 60_000);
  await worker.close();
  await t.throwsAsync(held, { instanceOf: TransportClosed });
  await t.throwsAsync(worker.request('actor.slow.1', bytes('x'), 1000), { instanceOf: TransportClosed });
  await close();
});

test('an ask the other side never answers (the channel went quiet) fails once its timeout and a quiet second have passed', async (t) => {
  const worker = new ChannelTransport({ send: () => true, on: () => undefined });
  const started = Date.now();
  const asks = [worker.request('actor.user.1', bytes('x'), 20), worker.request('actor.user.2', bytes('x'), 300)];
  await t.throwsAsync(asks[0]!, { instanceOf: TransportTimeout, message: 'no reply on actor.user.1 within 20 ms' });
  const first = Date.now() - started;
  // Not before its timeout and the quiet second; the upper bound only catches an ask that never fails
  // (a loaded machine runs the sweep late).
  t.true(first >= 1020 && first < 10_000, `failed after ${first} ms`);
  await t.throwsAsync(asks[1]!, { instanceOf: TransportTimeout, message: 'no reply on actor.user.2 within 300 ms' });
  t.true(Date.now() - started >= 1300);
  await worker.close();
});

test("calls reach the other side's operations; an unknown one fails", async (t) => {
  const { worker, close } = pair({ add: (a: { x: number; y: number }) => a.x + a.y });
  t.is(await worker.call<number>('add', { x: 2, y: 3 }), 5);
  await t.throwsAsync(worker.call('nope', null), { message: 'no operation nope' });
  await close();
});

test('an edge worker serves no subjects', (t) => {
  const { port2 } = new MessageChannel();
  const worker = new ChannelTransport(channelOf(port2));
  t.throws(() => worker.subscribe('actor.realm.0', () => {}));
  port2.close();
});

/** A served pair whose first side's messages to the worker are counted by kind (`t`). */
function countedPair(keptParts?: number) {
  const { port1, port2 } = new MessageChannel();
  const inside = new InProcessTransport();
  const sent = new Map<string, number>();
  const counted: Channel = {
    send: (message, callback) => {
      for (const m of Array.isArray(message) ? message : [message]) {
        const kind = (m as { t: string }).t;
        sent.set(kind, (sent.get(kind) ?? 0) + 1);
      }
      return channelOf(port1).send(message, callback);
    },
    on: (event, listener) => channelOf(port1).on(event, listener),
  };
  serveChannel(counted, inside, {}, undefined, keptParts);
  const worker = new ChannelTransport(channelOf(port2));
  const close = async () => {
    await worker.close();
    await inside.close();
    port1.close();
  };
  return { inside, worker, sent, close };
}

/** A message event as a recipient's queue answers it: the fan-out's event, the recipient's flags, the queue's id. */
function recipientsEvent(
  shared: { type: 'message'; message: object; people: object[] },
  id: number,
  flags: string[],
  local?: object,
) {
  return { ...shared, message: { ...shared.message, flags }, id, ...(local && { local }) };
}

const fannedOut = (n: number) => ({
  type: 'message' as const,
  message: { id: n, sender_id: 10, content: `message ${n}`, rendered: `<p>message ${n}</p>`, reactions: [] },
  people: [{ user_id: 10, full_name: 'King Hamlet' }],
  channel_is_public: true,
  channel_is_web_public: false,
});

const poll = { v: 1, kind: 'ask', to: { type: 'queue', key: 'zulip/q' }, body: { type: 'queue.get' }, deadline: 0 };

test("a poll's message events cross the channel once, and each answer comes back as it was sent", async (t) => {
  const { inside, worker, sent, close } = countedPair();
  const event = fannedOut(1);
  const typing = { type: 'typing', op: 'start', id: 3 };
  const answers = [
    [recipientsEvent(event, 1, ['read'])],
    [recipientsEvent(event, 2, [], { queue_id: 'q', local_id: '7' }), typing],
    [recipientsEvent(event, 5, ['mentioned', 'read'])],
    // Flags seen before, and others: each answer its own.
    [recipientsEvent(event, 6, ['read']), recipientsEvent(event, 7, ['mentioned'])],
    [recipientsEvent(event, 8, [])],
  ];
  let n = 0;
  inside.subscribe('actor.queue.0', (msg) =>
    msg.respond?.(toWire(inside, { v: 1, ok: true, body: { events: answers[n++] }, at: 4 })),
  );
  for (const answer of answers) {
    const reply = fromWire(await worker.request('actor.queue.0', toWire(worker, poll), 1000));
    t.deepEqual(reply, { v: 1, ok: true, body: { events: answer }, at: 4 });
  }
  t.is(sent.get('part'), 1, 'the message crossed once');
  await close();
});

test('a worker holds a bounded number of parts, and an answer naming a dropped one sends it again', async (t) => {
  const { inside, worker, sent, close } = countedPair(2);
  const events = [1, 2, 3].map(fannedOut);
  // Each recipient's poll of messages 1, 2, 3, then 1 again (dropped by then), then 3 (still held).
  const answers = [[0], [1], [2], [0], [2], [1, 2]].map((which, i) =>
    which.map((w) => recipientsEvent(events[w]!, i, [])),
  );
  let n = 0;
  inside.subscribe('actor.queue.0', (msg) =>
    msg.respond?.(toWire(inside, { v: 1, ok: true, body: { events: answers[n++] } })),
  );
  for (const answer of answers) {
    const reply = fromWire<{ body: unknown }>(await worker.request('actor.queue.0', toWire(worker, poll), 1000));
    t.deepEqual(reply.body, { events: answer });
  }
  t.is(sent.get('part'), 5, '1, 2, 3, 1 again, 2 again');
  await close();
});

test("a burst of polls' answers does not hold up an answer that came with them", async (t) => {
  const { inside, worker, close } = pair();
  const polls: Array<() => void> = [];
  inside.subscribe('actor.queue.0', (msg) =>
    polls.push(() => msg.respond?.(toWire(inside, { v: 1, ok: true, body: { events: [] } }))),
  );
  let sent: (() => void) | undefined;
  inside.subscribe('actor.user.1', (msg) => (sent = () => msg.respond?.(toWire(inside, { v: 1, ok: true }))));
  const order: string[] = [];
  const asked = Array.from({ length: 20 * POLLS_PER_TURN }, (_, i) =>
    worker.request('actor.queue.0', toWire(worker, poll), 1000).then(() => order.push(`poll ${i}`)),
  );
  asked.push(
    worker
      .request('actor.user.1', toWire(worker, { body: { type: 'user.sent' } }), 1000)
      .then(() => order.push('sent')),
  );
  while (polls.length < 20 * POLLS_PER_TURN || !sent) await new Promise((resolve) => setImmediate(resolve));
  // Every poll answered first (more than the line keeps before it lets go of those handed on), the other answer last: all in one batch across the channel.
  for (const respond of polls) respond();
  sent();
  await Promise.all(asked);
  t.true(order.indexOf('sent') <= POLLS_PER_TURN, `answered at ${order.indexOf('sent')}`);
  const polled = order.filter((o) => o !== 'sent');
  t.deepEqual(
    polled,
    polls.map((_, i) => `poll ${i}`),
    'the polls in the order they were answered',
  );
  await close();
});
