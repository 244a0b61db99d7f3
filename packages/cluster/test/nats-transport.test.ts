import test from 'ava';
import { connect } from 'nats';
import { NoResponders, TransportClosed, TransportTimeout, type TransportMessage } from '@chat/runtime';
import { NatsTransport } from '../src/index.js';
import { bytes, deferred, freshNamespace, natsUrl, RecordingLogger, text, Transports } from './nats-support.js';

const url = natsUrl();
const transports = new Transports();
test.after.always(() => transports.closeAll());

test('request gets the reply of the subscriber; the handler sees the unprefixed subject', async (t) => {
  const transport = await transports.connect(url, freshNamespace());
  const seen: string[] = [];
  transport.subscribe('actor.channel.3', (msg) => {
    seen.push(msg.subject);
    msg.respond?.(bytes(`echo:${text(msg.data)}`));
  });
  t.is(text(await transport.request('actor.channel.3', bytes('hi'), 5000)), 'echo:hi');
  t.deepEqual(seen, ['actor.channel.3']);
});

test('subjects are prefixed with the namespace on the wire', async (t) => {
  const namespace = freshNamespace();
  const transport = await transports.connect(url, namespace);
  const raw = await connect({ servers: url });
  const wire = deferred<string>();
  const sub = raw.subscribe(`${namespace}.>`, { callback: (_err, msg) => wire.resolve(msg.subject) });
  await raw.flush();
  transport.publish('actor.channel.3', bytes('x'));
  t.is(await wire.promise, `${namespace}.actor.channel.3`);
  sub.unsubscribe();
  await raw.close();
});

test('two namespaces on one server do not see each other', async (t) => {
  const [a, b] = await Promise.all([
    transports.connect(url, freshNamespace()),
    transports.connect(url, freshNamespace()),
  ]);
  const got = { a: [] as string[], b: [] as string[] };
  a.subscribe('actor.user.1', (msg) => {
    got.a.push(text(msg.data));
    msg.respond?.(bytes('a'));
  });
  b.subscribe('actor.user.1', (msg) => got.b.push(text(msg.data)));
  const done = deferred<void>();
  b.subscribe('end', () => done.resolve());
  await b.flush();
  a.publish('actor.user.1', bytes('from a'));
  t.is(text(await a.request('actor.user.1', bytes('ask a'), 5000)), 'a');
  b.publish('end', bytes(''));
  await done.promise;
  t.deepEqual(got, { a: ['from a', 'ask a'], b: [] });
  // Nobody serves the subject in b's namespace, though a serves it in its own.
  a.subscribe('only.a', (msg) => msg.respond?.(bytes('a')));
  await a.flush();
  await t.throwsAsync(b.request('only.a', bytes('?'), 5000), { instanceOf: NoResponders });
});

test('request with nobody subscribed rejects with NoResponders', async (t) => {
  const transport = await transports.connect(url, freshNamespace());
  await t.throwsAsync(transport.request('nobody.home', bytes('?'), 5000), { instanceOf: NoResponders });
});

test('request without a reply rejects with TransportTimeout', async (t) => {
  const transport = await transports.connect(url, freshNamespace());
  const seen = deferred<void>();
  transport.subscribe('silent', () => seen.resolve());
  await t.throwsAsync(transport.request('silent', bytes('?'), 200), { instanceOf: TransportTimeout });
  await seen.promise;
});

test('many concurrent requests each get their own reply, answered out of order', async (t) => {
  const namespace = freshNamespace();
  const server = await transports.connect(url, namespace);
  const client = await transports.connect(url, namespace);
  // Later requests are answered first: a reply found by arrival order would go to the wrong caller.
  server.subscribe('echo', (msg) => {
    const n = Number(text(msg.data));
    setTimeout(() => msg.respond?.(bytes(`re:${n}`)), (500 - n) % 7);
  });
  await server.flush();
  const asks = Array.from({ length: 500 }, (_, n) => client.request('echo', bytes(String(n)), 30_000));
  const replies = (await Promise.all(asks)).map(text);
  t.deepEqual(
    replies,
    Array.from({ length: 500 }, (_, n) => `re:${n}`),
  );
});

test('a reply after the timeout is dropped; the next request gets its own', async (t) => {
  const namespace = freshNamespace();
  const server = await transports.connect(url, namespace);
  const client = await transports.connect(url, namespace);
  const late = deferred<void>();
  server.subscribe('late', (msg) => {
    if (text(msg.data) === 'slow') setTimeout(() => (msg.respond?.(bytes('too late')), late.resolve()), 300);
    else msg.respond?.(bytes(`now:${text(msg.data)}`));
  });
  await server.flush();
  await t.throwsAsync(client.request('late', bytes('slow'), 100), {
    instanceOf: TransportTimeout,
    message: 'no reply on late within 100 ms',
  });
  const next = client.request('late', bytes('fast'), 5000);
  await late.promise;
  t.is(text(await next), 'now:fast');
  t.is(text(await client.request('late', bytes('again'), 5000)), 'now:again');
});

test('no responders is told apart from a timeout, and names the subject', async (t) => {
  const transport = await transports.connect(url, freshNamespace());
  const err = await t.throwsAsync(transport.request('nobody.here', bytes('?'), 30_000), { instanceOf: NoResponders });
  t.is(err?.message, 'no responders for nobody.here');
  t.false(err instanceof TransportTimeout);
  // An empty reply from a responder is a reply, not "no responders".
  transport.subscribe('empty', (msg) => msg.respond?.(new Uint8Array(0)));
  t.is((await transport.request('empty', bytes('?'), 5000)).length, 0);
});

test('a queue group gets each message once; every plain subscriber gets all', async (t) => {
  const namespace = freshNamespace();
  // Each member on its own connection, as hosts in separate processes would be.
  const members = await Promise.all([0, 1, 2].map(() => transports.connect(url, namespace)));
  const plain = await Promise.all([0, 1].map(() => transports.connect(url, namespace)));
  const total = 300;
  const byMember = members.map(() => [] as number[]);
  const byPlain = plain.map(() => [] as number[]);
  members.forEach((m, i) => m.subscribe('work', (msg) => byMember[i]!.push(Number(text(msg.data))), { queue: 'q' }));
  plain.forEach((p, i) => p.subscribe('work', (msg) => byPlain[i]!.push(Number(text(msg.data)))));
  // Every connection hears `end` after all the work it was given: NATS keeps one publisher's order per connection.
  const ends = [...members, ...plain].map((c) => {
    const end = deferred<void>();
    c.subscribe('end', () => end.resolve());
    return end;
  });
  // A request through the group is answered by one member only.
  let asked = 0;
  members.forEach((m) => m.subscribe('ask', (msg) => (asked++, msg.respond?.(bytes('one'))), { queue: 'q' }));
  await Promise.all([...members, ...plain].map((m) => m.flush()));
  const sender = await transports.connect(url, namespace);
  t.is(text(await sender.request('ask', bytes(''), 5000)), 'one');
  for (let i = 0; i < total; i++) sender.publish('work', bytes(String(i)));
  sender.publish('end', bytes(''));
  await Promise.all(ends.map((e) => e.promise));
  const all = byMember.flat().sort((x, y) => x - y);
  t.deepEqual(all, [...Array(total).keys()]);
  t.true(
    byMember.every((got) => got.length > 0),
    `spread: ${byMember.map((g) => g.length).join('/')}`,
  );
  for (const got of byPlain) t.deepEqual(got, [...Array(total).keys()]);
  t.is(asked, 1);
});

test('unsubscribe stops delivery', async (t) => {
  const transport = await transports.connect(url, freshNamespace());
  const seen: string[] = [];
  const first = deferred<void>();
  const sub = transport.subscribe('s', (msg) => {
    seen.push(text(msg.data));
    first.resolve();
  });
  const done = deferred<void>();
  transport.subscribe('end', () => done.resolve());
  transport.publish('s', bytes('before'));
  await first.promise;
  sub.unsubscribe();
  sub.unsubscribe(); // twice is harmless
  transport.publish('s', bytes('after'));
  transport.publish('end', bytes(''));
  await done.promise;
  t.deepEqual(seen, ['before']);
  await t.throwsAsync(transport.request('s', bytes('?'), 5000), { instanceOf: NoResponders });
});

test('a throwing handler is logged and its subscription keeps going', async (t) => {
  const log = new RecordingLogger();
  const transport = await transports.connect(url, freshNamespace(), log);
  let calls = 0;
  transport.subscribe('fragile', (msg) => {
    calls++;
    if (text(msg.data) === 'boom') throw new Error('boom');
    msg.respond?.(bytes('fine'));
  });
  transport.subscribe('async', async () => {
    throw new Error('async boom');
  });
  transport.publish('fragile', bytes('boom'));
  transport.publish('async', bytes(''));
  t.is(text(await transport.request('fragile', bytes('again'), 5000)), 'fine');
  t.is(calls, 2);
  const errors = log.lines.filter((l) => l.level === 'error').map((l) => (l.obj as { subject: string }).subject);
  t.deepEqual(errors.sort(), ['async', 'fragile']);
});

test('respond twice is a no-op; a published message has no respond', async (t) => {
  const transport = await transports.connect(url, freshNamespace());
  const published = deferred<TransportMessage>();
  transport.subscribe('twice', (msg) => {
    if (!msg.respond) return published.resolve(msg);
    msg.respond(bytes('first'));
    msg.respond(bytes('second'));
  });
  t.is(text(await transport.request('twice', bytes(''), 5000)), 'first');
  transport.publish('twice', bytes(''));
  t.is((await published.promise).respond, undefined);
});

test('bytes are the sender’s at the time of sending', async (t) => {
  const transport = await transports.connect(url, freshNamespace());
  const got = deferred<string>();
  transport.subscribe('s', (msg) => got.resolve(text(msg.data)));
  const sent = Buffer.from('hello');
  transport.publish('s', sent);
  sent.write('XXXXX'); // before nats.js flushes its buffer
  t.is(await got.promise, 'hello');
});

test('a payload over max_payload fails with a clear error instead of hanging', async (t) => {
  const transport = await transports.connect(url, freshNamespace());
  transport.subscribe('big', (msg) => msg.respond?.(bytes('ok')));
  const big = new Uint8Array(transport.maxPayload + 1);
  t.throws(() => transport.publish('big', big), { message: /exceeds the NATS max_payload/ });
  await t.throwsAsync(transport.request('big', big, 5000), { message: /exceeds the NATS max_payload/ });
  // The largest allowed payload still goes through, and the connection is still fine.
  t.is(text(await transport.request('big', new Uint8Array(transport.maxPayload - 1024), 10_000)), 'ok');
});

test('close drains: pending requests are rejected, later calls fail or drop', async (t) => {
  const namespace = freshNamespace();
  const server = await transports.connect(url, namespace);
  const client = await NatsTransport.connect({ servers: url, namespace });
  const seen = deferred<void>();
  server.subscribe('slow', () => seen.resolve());
  await server.flush();
  const pending = Array.from({ length: 20 }, () => client.request('slow', bytes('?'), 60_000));
  await seen.promise;
  await client.close();
  for (const request of pending) await t.throwsAsync(request, { instanceOf: TransportClosed });
  await t.throwsAsync(client.request('slow', bytes('?'), 1000), { instanceOf: TransportClosed });
  t.notThrows(() => client.publish('slow', bytes('dropped')));
  t.throws(() => client.subscribe('x', () => {}), { message: /closed/ });
  await client.close(); // twice is harmless
});

test('a namespace that is not a lowercase identifier is refused', async (t) => {
  for (const namespace of ['', 'Upper', '1abc', 'has.dot', 'has-dash', 'a'.repeat(33)]) {
    await t.throwsAsync(NatsTransport.connect({ servers: url, namespace }), { message: /namespace/ });
  }
});
