import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import test from 'ava';
import { connect, DiscardPolicy } from 'nats';
import { bucketName, kvKey, NatsRateLimits, type NatsRateLimitStore } from '../src/index.js';
import { eventually, freshNamespace, natsUrl, OwnNatsServer, RecordingLogger } from './nats-support.js';

const url = natsUrl();
const opened: NatsRateLimits[] = [];
const namespaces: string[] = [];
test.after.always(async () => {
  await Promise.all(opened.splice(0).map((limits) => limits.close()));
  await Promise.all(namespaces.map((namespace) => NatsRateLimits.dropNamespace(url, namespace)));
});

const KIND = { windowMs: 60_000, maxKeys: 1000 };

/** `count` edges' stores of one kind over the same bucket of a fresh namespace, each with its own connection. */
async function edges(count: number, windowMs = KIND.windowMs, log = new RecordingLogger()) {
  const namespace = freshNamespace();
  namespaces.push(namespace);
  const stores: NatsRateLimitStore[] = [];
  for (let i = 0; i < count; i++) {
    const limits = await NatsRateLimits.connect({ servers: url, namespace, name: `edge-${i}`, log });
    opened.push(limits);
    stores.push(await limits.store('user', { ...KIND, windowMs }));
  }
  return { namespace, stores, log };
}

async function twoEdges(windowMs = KIND.windowMs) {
  const { namespace, stores, log } = await edges(2, windowMs);
  return { namespace, a: stores[0]!, b: stores[1]!, log };
}

/** The window a key holds in the bucket, read past the store. */
async function stored(namespace: string, key: string): Promise<{ count: number; endsAt: number } | null> {
  const nc = await connect({ servers: url });
  try {
    const kv = await (await nc.jetstream()).views.kv(bucketName(namespace, 'user'), { bindOnly: true });
    const entry = await kv.get(kvKey(key));
    return entry?.operation === 'PUT' ? entry.json() : null;
  } finally {
    await nc.close();
  }
}

test('two edges share one limit exactly under concurrent hits', async (t) => {
  const { namespace, a, b, log } = await twoEdges();
  const hits = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? a : b).hit('1:10', 20, 60_000)));
  const allowed = hits.filter((hit) => hit.allowed);
  t.is(allowed.length, 20);
  // Each allowed hit took a distinct place in the window.
  t.deepEqual(
    allowed.map((hit) => hit.remaining).sort((x, y) => x - y),
    Array.from({ length: 20 }, (_, i) => i),
  );
  for (const hit of hits.filter((h) => !h.allowed)) t.is(hit.remaining, 0);
  t.is((await stored(namespace, '1:10'))?.count, 20);
  // Nothing was let through because a race or the server failed.
  t.deepEqual(log.lines, []);
});

test('four edges hitting at staggered moments race on every count, and still share one limit', async (t) => {
  const { namespace, stores, log } = await edges(4);
  // Spread over a few milliseconds, the hits of different edges read the same revision and collide.
  const hits = await Promise.all(
    Array.from({ length: 80 }, async (_, i) => {
      await sleep(Math.random() * 40);
      return stores[i % 4]!.hit('1:20', 30, 60_000);
    }),
  );
  t.is(hits.filter((hit) => hit.allowed).length, 30);
  t.is((await stored(namespace, '1:20'))?.count, 30);
  t.deepEqual(log.lines, []);
});

test('refused hits are not counted and do not move the window', async (t) => {
  const { namespace, a, b } = await twoEdges();
  const first = await a.hit('1:11', 3, 60_000);
  t.like(first, { allowed: true, remaining: 2 });
  t.like(await b.hit('1:11', 3, 60_000), { allowed: true, remaining: 1 });
  t.like(await a.hit('1:11', 3, 60_000), { allowed: true, remaining: 0 });
  const window = await stored(namespace, '1:11');
  for (let i = 0; i < 5; i++) {
    const refused = await (i % 2 === 0 ? a : b).hit('1:11', 3, 60_000);
    t.like(refused, { allowed: false, remaining: 0 });
    t.true(refused.resetMs <= first.resetMs && refused.resetMs > 0);
  }
  t.is(window?.count, 3);
  t.deepEqual(await stored(namespace, '1:11'), window);
});

test('a window ends: the whole limit is back after resetMs', async (t) => {
  const { a, b } = await twoEdges(1500);
  t.like(await a.hit('1:12', 2, 1500), { allowed: true, remaining: 1 });
  t.like(await b.hit('1:12', 2, 1500), { allowed: true, remaining: 0 });
  const refused = await a.hit('1:12', 2, 1500);
  t.false(refused.allowed);
  await sleep(refused.resetMs + 50);
  const again = await b.hit('1:12', 2, 1500);
  t.like(again, { allowed: true, remaining: 1 });
  t.true(again.resetMs > 1000, `a new window of 1500 ms, ${again.resetMs} ms left`);
});

test('reset on one edge clears the key for every edge, and only that key', async (t) => {
  const { namespace, a, b } = await twoEdges();
  for (let i = 0; i < 3; i++) await a.hit('alice@example.com', 3, 60_000);
  for (let i = 0; i < 3; i++) await a.hit('bob@example.com', 3, 60_000);
  t.false((await b.hit('alice@example.com', 3, 60_000)).allowed);
  await b.reset('alice@example.com');
  t.is(await stored(namespace, 'alice@example.com'), null);
  t.like(await a.hit('alice@example.com', 3, 60_000), { allowed: true, remaining: 2 });
  t.false((await b.hit('bob@example.com', 3, 60_000)).allowed);
  // Resetting a key nobody counted is harmless.
  await a.reset('nobody@example.com');
  t.like(await b.hit('nobody@example.com', 3, 60_000), { allowed: true, remaining: 2 });
});

test('any key is accepted and kept apart: addresses, unicode, dots, the empty key', async (t) => {
  const { a, b } = await twoEdges();
  const keys = ['::1', '10.0.0.1', 'ünïcødé user@zulip.com', 'a.b.c', '', '*', '>'];
  for (const key of keys) t.like(await a.hit(key, 2, 60_000), { allowed: true, remaining: 1 }, key);
  for (const key of keys) t.like(await b.hit(key, 2, 60_000), { allowed: true, remaining: 0 }, key);
  for (const key of keys) t.false((await a.hit(key, 2, 60_000)).allowed, key);
});

test('the bucket keeps keys at least a window, drops the oldest beyond its bound, and takes a longer window', async (t) => {
  const namespace = freshNamespace();
  namespaces.push(namespace);
  const limits = await NatsRateLimits.connect({ servers: url, namespace });
  opened.push(limits);
  await limits.store('login', { windowMs: 60_000, maxKeys: 500 });
  const nc = await connect({ servers: url });
  const info = async () =>
    (await (await nc.jetstreamManager()).streams.info(`KV_${bucketName(namespace, 'login')}`)).config;
  try {
    const first = await info();
    t.true(first.max_age >= 60_000 * 1e6, `max age ${first.max_age} ns`);
    t.is(first.max_msgs, 500);
    t.is(first.discard, DiscardPolicy.Old);
    t.is(first.max_msgs_per_subject, 1);
    // Another edge configured with a 30-minute window lengthens the max age of the same bucket.
    await limits.store('login', { windowMs: 1_800_000, maxKeys: 500 });
    t.true((await info()).max_age >= 1_800_000 * 1e6);
    // Beyond the bound the oldest windows go, forgiven, while the newest stay.
    const small = await limits.store('ip', { windowMs: 60_000, maxKeys: 5 });
    for (let i = 0; i < 8; i++) t.true((await small.hit(`10.0.0.${i}`, 1, 60_000)).allowed);
    t.false((await small.hit('10.0.0.7', 1, 60_000)).allowed);
    t.true((await small.hit('10.0.0.0', 1, 60_000)).allowed);
  } finally {
    await nc.close();
  }
});

test('while NATS is down every hit is allowed at once, logged once; counting resumes after', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'nats-js-'));
  const server = await OwnNatsServer.start({ jetstreamDir: dir });
  const log = new RecordingLogger();
  const limits = await NatsRateLimits.connect({ servers: server.url, namespace: freshNamespace(), log });
  try {
    const store = await limits.store('ip', { windowMs: 60_000, maxKeys: 100 });
    t.like(await store.hit('10.0.0.9', 1, 60_000), { allowed: true, remaining: 0 });
    t.false((await store.hit('10.0.0.9', 1, 60_000)).allowed);

    await server.kill();
    // Over the limit, yet allowed: the outage is noticed by the connection or by a failed call.
    await eventually(async () => (await store.hit('10.0.0.9', 1, 60_000)).allowed);
    for (let i = 0; i < 20; i++) t.true((await store.hit('10.0.0.9', 1, 60_000)).allowed);
    await store.reset('10.0.0.9');
    t.is(log.lines.filter((line) => line.level === 'warn').length, 1);

    await server.start();
    // The bucket was kept on disk, and with it the window that was full before the outage.
    await eventually(async () => !(await store.hit('10.0.0.9', 1, 60_000)).allowed);
    t.true(log.lines.some((line) => line.level === 'info' && /reachable again/.test(line.msg)));
  } finally {
    await limits.close();
    await server.kill();
    await rm(dir, { recursive: true, force: true });
  }
});
