import test from 'ava';
import {
  Carried,
  checkValues,
  fromWire,
  NoResponders,
  toWire,
  TransportClosed,
  TransportTimeout,
  type TransportMessage,
} from '@chat/runtime';
import { InProcessTransport } from '../src/index.js';
import { TURN_DELIVERIES } from '../src/transport.js';
import { bytes, deferred, text } from './helpers.js';

test('request gets the reply of the subscriber', async (t) => {
  const transport = new InProcessTransport();
  transport.subscribe('actor.echo', (msg) => msg.respond?.(bytes(`echo:${text(msg.data)}`)));
  const reply = await transport.request('actor.echo', bytes('hi'), 1000);
  t.is(text(reply), 'echo:hi');
  await transport.close();
});

test('delivery is asynchronous, never inside publish', async (t) => {
  const transport = new InProcessTransport();
  const got = deferred<void>();
  let delivered = false;
  transport.subscribe('s', () => {
    delivered = true;
    got.resolve();
  });
  transport.publish('s', bytes('x'));
  t.false(delivered);
  await got.promise;
  t.true(delivered);
  await transport.close();
});

test('bytes are copied both ways: no buffer is shared', async (t) => {
  const transport = new InProcessTransport();
  const first = deferred<Uint8Array>();
  const second = deferred<Uint8Array>();
  transport.subscribe('s', (msg) => {
    msg.data[0] = 0; // a handler scribbling on its copy must not reach the other one
    first.resolve(msg.data);
  });
  transport.subscribe('s', (msg) => second.resolve(msg.data));
  // A Buffer on purpose: Buffer#slice is a view, so a naive copy would share it.
  const sent = Buffer.from('hello');
  transport.publish('s', sent);
  sent.write('XXXXX');
  t.deepEqual([...(await first.promise)], [0, ...bytes('ello')]);
  t.is(text(await second.promise), 'hello');

  const reply = Buffer.from('reply');
  transport.subscribe('r', (msg) => {
    msg.respond?.(reply);
    reply.write('ZZZZZ');
  });
  t.is(text(await transport.request('r', bytes(''), 1000)), 'reply');
  await transport.close();
});

test('request with nobody subscribed rejects with NoResponders', async (t) => {
  const transport = new InProcessTransport();
  await t.throwsAsync(transport.request('nobody.home', bytes('?'), 1000), { instanceOf: NoResponders });
  await transport.close();
});

test('request without a reply rejects with TransportTimeout', async (t) => {
  const transport = new InProcessTransport();
  const seen = deferred<void>();
  transport.subscribe('silent', () => seen.resolve());
  await t.throwsAsync(transport.request('silent', bytes('?'), 20), { instanceOf: TransportTimeout });
  await seen.promise;
  await transport.close();
});

test('requests with different timeouts each time out at their own deadline, answered ones not', async (t) => {
  const transport = new InProcessTransport();
  transport.subscribe('silent', () => undefined);
  let answer: ((data: Uint8Array) => void) | undefined;
  transport.subscribe('later', (msg) => (answer = msg.respond));
  const start = Date.now();
  const at = (p: Promise<unknown>) =>
    p.then(
      () => ({ ok: true, ms: Date.now() - start }),
      (err: unknown) => ({ ok: !(err instanceof TransportTimeout), ms: Date.now() - start }),
    );
  const long = at(transport.request('silent', bytes('1'), 300));
  const short = at(transport.request('silent', bytes('2'), 30));
  const answered = at(transport.request('later', bytes('3'), 100));
  await new Promise((resolve) => setTimeout(resolve, 10));
  answer!(bytes('ok'));
  const [l, s, a] = await Promise.all([long, short, answered]);
  t.false(s.ok);
  t.true(s.ms >= 29 && s.ms < 250, `the short one timed out at ${s.ms} ms`);
  t.false(l.ok);
  t.true(l.ms >= 299, `the long one timed out at ${l.ms} ms`);
  t.true(a.ok, 'the answered one resolved');
  await transport.close();
});

test('a queue group gets each message once, round robin; plain subscribers get all', async (t) => {
  const transport = new InProcessTransport();
  const counts = [0, 0, 0];
  let plain = 0;
  const total = 9;
  const done = deferred<void>();
  const check = () => {
    if (counts.reduce((a, b) => a + b) === total && plain === total) done.resolve();
  };
  counts.forEach((_, i) =>
    transport.subscribe(
      'work',
      () => {
        counts[i]!++;
        check();
      },
      { queue: 'workers' },
    ),
  );
  transport.subscribe('work', () => {
    plain++;
    check();
  });
  for (let i = 0; i < total; i++) transport.publish('work', bytes(String(i)));
  await done.promise;
  t.deepEqual(counts, [3, 3, 3]);
  t.is(plain, total);
  await transport.close();
});

test('wildcards: * is one token, a trailing > is one or more', async (t) => {
  const transport = new InProcessTransport();
  const seen: string[] = [];
  const done = deferred<void>();
  transport.subscribe('actor.>', (msg) => seen.push(`>:${msg.subject}`));
  transport.subscribe('actor.*.1', (msg) => seen.push(`*:${msg.subject}`));
  transport.subscribe('end', () => done.resolve());
  for (const s of ['actor', 'actor.user', 'actor.user.1', 'actor.user.2', 'other.user.1']) {
    transport.publish(s, bytes(''));
  }
  transport.publish('end', bytes(''));
  await done.promise;
  t.deepEqual(seen.sort(), ['*:actor.user.1', '>:actor.user', '>:actor.user.1', '>:actor.user.2']);
  await transport.close();
});

test('unsubscribe stops delivery, also of messages already queued', async (t) => {
  const transport = new InProcessTransport();
  const seen: string[] = [];
  const done = deferred<void>();
  const sub = transport.subscribe('s', (msg) => seen.push(text(msg.data)));
  transport.subscribe('end', () => done.resolve());
  transport.publish('s', bytes('queued'));
  sub.unsubscribe();
  transport.publish('s', bytes('after'));
  transport.publish('end', bytes(''));
  await done.promise;
  t.deepEqual(seen, []);
  await transport.close();
});

test('close rejects pending requests and stops delivery', async (t) => {
  const transport = new InProcessTransport();
  const seen = deferred<TransportMessage>();
  transport.subscribe('slow', (msg) => seen.resolve(msg));
  const pending = transport.request('slow', bytes('?'), 60_000);
  const msg = await seen.promise;
  await transport.close();
  await t.throwsAsync(pending, { instanceOf: TransportClosed });
  msg.respond?.(bytes('too late')); // a no-op, not a crash
  await t.throwsAsync(transport.request('slow', bytes('?'), 1000), { instanceOf: TransportClosed });
});

test('a throwing handler is reported and does not stop the others', async (t) => {
  const errors: string[] = [];
  const transport = new InProcessTransport({ onHandlerError: (_err, subject) => errors.push(subject) });
  const other = deferred<void>();
  transport.subscribe('s', () => {
    throw new Error('boom');
  });
  transport.subscribe('s', () => other.resolve());
  transport.publish('s', bytes(''));
  await other.promise;
  t.deepEqual(errors, ['s']);
  await transport.close();
});

test('a carried message is the value itself; in check mode a receiver changing it throws, and the others see it unchanged', async (t) => {
  checkValues(true); // what scripts/test.sh turns on (CHAT_CHECK_VALUES=1)
  const failed = deferred<unknown>();
  const transport = new InProcessTransport({ onHandlerError: (err) => failed.resolve(err) });
  const second = deferred<unknown>();
  transport.subscribe('s', (msg) => {
    fromWire<{ list: number[] }>(msg.data).list.push(99); // not allowed: others share it
  });
  transport.subscribe('s', (msg) => second.resolve(fromWire(msg.data)));
  const sent = { list: [1, 2] };
  const data = toWire(transport, sent, 's');
  t.true(data instanceof Carried, 'in this process the value travels, not bytes');
  transport.publish('s', data);
  t.throws(() => sent.list.push(3), { instanceOf: TypeError }, 'nor may the sender change it');
  t.true((await failed.promise) instanceof TypeError);
  t.is(await second.promise, sent);
  t.deepEqual(sent, { list: [1, 2] });
  await transport.close();
});

test('a cascade longer than a turn lets I/O in between, and keeps the order the deliveries were made in', async (t) => {
  const transport = new InProcessTransport();
  const total = TURN_DELIVERIES * 4;
  const got: number[] = [];
  const done = deferred<void>();
  // Each delivery to `a` makes one to `b`, as a user's actor passes a message to its queue.
  transport.subscribe('a', (msg) => transport.publish('b', msg.data));
  transport.subscribe('b', (msg) => {
    got.push(Number(text(msg.data)));
    if (got.length === total) done.resolve();
  });
  for (let i = 0; i < total; i++) transport.publish('a', bytes(String(i)));
  // What a socket write waits for: the end of the turn the cascade started in.
  const atTurnEnd = new Promise<number>((resolve) => setImmediate(() => resolve(got.length)));
  t.true((await atTurnEnd) < total, 'I/O waited for the whole cascade');
  await done.promise;
  t.deepEqual(
    got,
    Array.from({ length: total }, (_, i) => i),
  );
  await transport.close();
});

test('a long line of deliveries to one subject does not hold back another subject', async (t) => {
  const transport = new InProcessTransport();
  const total = TURN_DELIVERIES * 4;
  const queued: number[] = [];
  const other = deferred<number>();
  transport.subscribe('queues', (msg) => queued.push(Number(text(msg.data))));
  transport.subscribe('user', () => other.resolve(queued.length));
  for (let i = 0; i < total; i++) transport.publish('queues', bytes(String(i)));
  transport.publish('user', bytes('sent'));
  t.true((await other.promise) < total, 'the other subject waited for the whole line');
  await new Promise((resolve) => setTimeout(resolve, 50));
  t.deepEqual(
    queued,
    Array.from({ length: total }, (_, i) => i),
  );
  await transport.close();
});
