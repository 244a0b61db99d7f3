import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ChatError, type ActorAddress } from '@chat/protocol';
import { shardOf, TransportActorClient, TURN_HANDOVERS, type AnyBehavior } from '../src/index.js';
import { untyped } from './untyped.js';
import { counterBehavior, Probe, type CounterState } from './counter.js';
import { nodeTest, TestNode, waitFor } from './node.js';

const test = nodeTest();

const actor = (key: string): ActorAddress => ({ type: 'user', key });

async function start(t: { context: { nodes: TestNode[] } }, probe = new Probe(), options = {}) {
  const node = await TestNode.start([counterBehavior(probe)], options);
  t.context.nodes.push(node);
  return node;
}

test('messages to one actor are processed in the order they were sent', async (t) => {
  const node = await start(t);
  const replies = await Promise.all(
    Array.from({ length: 100 }, (_, i) => node.client.ask(actor('order'), { type: 'add', value: i })),
  );
  const state = await node.client.ask<CounterState>(actor('order'), { type: 'get' });
  t.deepEqual(
    state.values,
    Array.from({ length: 100 }, (_, i) => i),
  );
  t.deepEqual(
    replies.map((r) => (r as { count: number }).count),
    Array.from({ length: 100 }, (_, i) => i + 1),
  );
});

test('a read answers the state as it decided, with the journal position of the newest change it saw', async (t) => {
  const node = await start(t);
  node.appendDelayMs = 50;
  const positions: number[] = [];
  const read = () =>
    node.client.ask<CounterState>(actor('seen'), { type: 'get' }, { onPosition: (p) => positions.push(p) });
  // The read is decided after the first write and before the second, both still on their way to disk.
  const [, first] = await Promise.all([
    node.client.ask(actor('seen'), { type: 'add', value: 1 }),
    read(),
    node.client.ask(actor('seen'), { type: 'add', value: 2 }),
  ]);
  t.deepEqual(first.values, [1]);
  const second = await read();
  t.deepEqual(second.values, [1, 2]);
  t.is(positions.length, 2);
  t.true(positions[0]! >= 0 && positions[1]! > positions[0]!);
});

test("one actor's concurrent writes share fsyncs, and replies keep their order", async (t) => {
  const node = await start(t);
  const before = node.journal.stats.fsyncs;
  const replies = await Promise.all(
    Array.from({ length: 100 }, (_, i) => node.client.ask<{ count: number }>(actor('hot'), { type: 'add', value: i })),
  );
  const fsyncs = node.journal.stats.fsyncs - before;
  t.log(`100 writes to one actor: ${fsyncs} fsyncs`);
  t.true(fsyncs < 50);
  t.deepEqual(
    replies.map((r) => r.count),
    Array.from({ length: 100 }, (_, i) => i + 1),
  );
});

test('an actor handles one message at a time under concurrent asks', async (t) => {
  const probe = new Probe();
  const node = await start(t, probe);
  await Promise.all(Array.from({ length: 50 }, (_, i) => node.client.ask(actor('serial'), { type: 'add', value: i })));
  t.is(probe.maxActive, 1);
  // Different actors do run side by side: the limit is per actor, not global.
  probe.maxActive = 0;
  await Promise.all(
    Array.from({ length: 20 }, (_, i) => node.client.ask(actor(`parallel-${i}`), { type: 'sleep', ms: 20 })),
  );
  t.true(probe.maxActive > 1);
});

test('an ask past its deadline fails with REQUEST_TIMEOUT and a late reply is dropped', async (t) => {
  const node = await start(t);
  const err = await t.throwsAsync(node.client.ask(actor('slow'), { type: 'sleep', ms: 300 }, { timeoutMs: 50 }));
  t.true(err instanceof ChatError);
  t.is((err as ChatError).code, 'REQUEST_TIMEOUT');
  // The transport's timer says so, or, when the loop was too busy to hand the message over within
  // the 50 ms, the cell itself: both are this ask's REQUEST_TIMEOUT.
  t.regex(err!.message, /within 50 ms|deadline passed/);
  // The actor is still usable once the slow work is over.
  t.is(await node.client.ask(actor('slow'), { type: 'sleep', ms: 1 }), 'woke');
});

test('an ask whose transport closes (its process is stopping) fails OVERLOADED with retry-after, not as a fault', async (t) => {
  const node = await start(t);
  const waiting = node.client.ask(actor('slow'), { type: 'sleep', ms: 300 }, { timeoutMs: 60_000 });
  await new Promise((resolve) => setImmediate(resolve));
  await node.transport.close();
  for (const ask of [waiting, node.client.ask(actor('other'), { type: 'sleep', ms: 1 })]) {
    const err = await t.throwsAsync(ask);
    t.true(err instanceof ChatError);
    t.is((err as ChatError).code, 'OVERLOADED');
    t.is((err as ChatError).extra['retry-after'], 1);
  }
});

test('a domain error travels back as a ChatError with its code', async (t) => {
  const node = await start(t);
  const err = await t.throwsAsync(node.client.ask(actor('err'), { type: 'fail' }));
  t.is((err as ChatError).code, 'BAD_REQUEST');
  t.is(err!.message, 'Refused on purpose');
});

test('a retried command with the same idempotency key applies once, across restarts', async (t) => {
  const node = await start(t);
  const first = await node.client.ask(actor('idem'), { type: 'add', value: 7 }, { idempotencyKey: 'k1' });
  const retry = await node.client.ask(actor('idem'), { type: 'add', value: 7 }, { idempotencyKey: 'k1' });
  t.deepEqual(retry, first);
  await node.abandon();
  await node.boot();
  const afterCrash = await node.client.ask(actor('idem'), { type: 'add', value: 7 }, { idempotencyKey: 'k1' });
  t.deepEqual(afterCrash, first);
  const state = await node.client.ask<CounterState>(actor('idem'), { type: 'get' });
  t.deepEqual(state.values, [7]);
});

test('a behavior may remember more idempotency keys than the host, also across a crash', async (t) => {
  // The host remembers 2 keys per actor; this behavior 50 (event queues remember many).
  const node = await TestNode.start([{ ...counterBehavior(), idempotencyCapacity: 50 }], { idempotencyCapacity: 2 });
  t.context.nodes.push(node);
  const add = (value: number) =>
    node.client.ask(actor('many'), { type: 'add', value }, { idempotencyKey: `k${value}` });
  for (let value = 0; value < 10; value++) await add(value);
  await add(0);
  await node.abandon();
  await node.boot();
  await add(1);
  const state = await node.client.ask<CounterState>(actor('many'), { type: 'get' });
  t.deepEqual(state.values, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
});

test('a soft change shows at once and is saved by a checkpoint; a crash before one forgets it', async (t) => {
  const node = await start(t);
  const values = async () => (await node.client.ask<CounterState>(actor('soft'), { type: 'get' })).values;
  await node.client.ask(actor('soft'), { type: 'add', value: 1 });
  await node.client.ask(actor('soft'), { type: 'addSoftly', value: 2 });
  t.deepEqual(await values(), [1, 2]);
  await node.stop();
  await node.boot();
  t.deepEqual(await values(), [1, 2], 'the clean stop checkpointed it');
  await node.client.ask(actor('soft'), { type: 'addSoftly', value: 3 });
  await node.client.ask(actor('soft'), { type: 'add', value: 4 });
  await node.abandon();
  await node.boot();
  t.deepEqual(await values(), [1, 2, 4], 'only the journaled change survives the crash');
});

test('softUntilRest: a checkpoint does not save an actor for soft changes, a graceful stop does; a soft change under a key is applied once', async (t) => {
  const behavior = { ...counterBehavior(new Probe()), softUntilRest: true };
  const node = await TestNode.start([behavior as unknown as AnyBehavior], { checkpointEvery: 1 });
  t.context.nodes.push(node);
  const values = async () => (await node.client.ask<CounterState>(actor('mem'), { type: 'get' })).values;
  const checkpoint = async () => {
    await node.host.whenIdle();
    await node.host.sweep(Date.now() + 60_000);
  };
  await node.client.ask(actor('mem'), { type: 'add', value: 1 });
  await checkpoint();
  for (let i = 0; i < 2; i++)
    await node.client.ask(actor('mem'), { type: 'addSoftly', value: 2 }, { idempotencyKey: 'soft-1' });
  t.deepEqual(await values(), [1, 2], 'the repeat was answered from memory');
  // Another actor of the partition makes a checkpoint due: it writes that actor only.
  const other = Array.from({ length: 50 }, (_, i) => actor(`o${i}`)).find(
    (a) => shardOf(a, 4) === shardOf(actor('mem'), 4),
  )!;
  await node.client.ask(other, { type: 'add', value: 9 });
  const snapshots = node.host.stats.snapshots;
  await checkpoint();
  t.is(node.host.stats.snapshots, snapshots + 1, 'one snapshot: the actor with a journaled change');
  await node.abandon();
  await node.boot();
  t.deepEqual(await values(), [1], 'a crash forgets the soft change');
  await node.client.ask(actor('mem'), { type: 'addSoftly', value: 3 });
  await node.stop();
  await node.boot();
  t.deepEqual(await values(), [1, 3], 'the graceful stop saved it');
});

test('a shard handed off puts its actors to rest before its checkpoint', async (t) => {
  const node = await start(t);
  await node.client.ask(actor('moving'), { type: 'addSoftly', value: 1 });
  const shard = shardOf(actor('moving'), node.host.shards.length);
  await node.host.removeShard(shard);
  await node.host.addShard(shard, 2);
  const state = await node.client.ask<CounterState>(actor('moving'), { type: 'get' });
  t.deepEqual([state.values, state.rests], [[1], 1]);
});

test('a passivated actor comes back with its state', async (t) => {
  const node = await start(t, new Probe(), { passivateAfterMs: 60_000 });
  await node.client.ask(actor('sleepy'), { type: 'add', value: 1 });
  await node.client.ask(actor('sleepy'), { type: 'add', value: 2 });
  t.is(node.host.stats.live, 1);
  await node.host.whenIdle();
  await node.host.sweep(Date.now() + 120_000);
  t.is(node.host.stats.live, 0);
  t.is(node.host.stats.passivations, 1);
  const state = await node.client.ask<CounterState>(actor('sleepy'), { type: 'get' });
  t.deepEqual(state.values, [1, 2]);
  t.is(node.host.stats.activations, 2);
});

test('an actor is put to rest before its last snapshot on passivation and on a graceful stop, not on a crash', async (t) => {
  const node = await start(t, new Probe(), { passivateAfterMs: 60_000 });
  const rests = async () => (await node.client.ask<CounterState>(actor('resting'), { type: 'get' })).rests ?? 0;
  await node.client.ask(actor('resting'), { type: 'addSoftly', value: 1 });
  await node.host.whenIdle();
  await node.host.sweep(Date.now() + 120_000);
  t.is(node.host.stats.passivations, 1);
  t.is(await rests(), 1, 'passivated');
  await node.stop();
  await node.boot();
  t.is(await rests(), 2, 'stopped gracefully');
  await node.client.ask(actor('resting'), { type: 'add', value: 2 });
  await node.abandon();
  await node.boot();
  t.is(await rests(), 2, 'a crash puts nothing to rest');
});

test('an actor that refuses passivation is woken after a crash and after a clean restart', async (t) => {
  const node = await start(t, new Probe(), { checkpointEvery: 2 });
  await node.client.ask(actor('pinned'), { type: 'add', value: -1 });
  await node.client.ask(actor('loose'), { type: 'add', value: 1 });
  await node.abandon();
  await node.boot();
  // Nobody asked either actor since the crash: only the pinned one is live.
  t.is(node.host.stats.live, 1);
  await node.client.ask(actor('pinned'), { type: 'add', value: 2 });
  await node.host.whenIdle();
  await node.host.sweep();
  await node.stop();
  await node.boot();
  t.is(node.host.stats.live, 1);
  t.deepEqual((await node.client.ask<CounterState>(actor('pinned'), { type: 'get' })).values, [-1, 2]);
});

test('a host swept or stopped while a woken actor still loads its snapshot waits for it, and keeps its state', async (t) => {
  const node = await start(t);
  await node.client.ask(actor('pinned'), { type: 'add', value: -1 });
  await node.stop();
  // The restart wakes the pinned actor; the stop comes while its snapshot is still being read
  // (the admin command line does this: it starts a node, fails on its arguments and stops).
  node.snapshotReadDelayMs = 200;
  await node.boot();
  t.is(node.host.stats.live, 1);
  // Nor may a sweep meanwhile ask whether a state it does not have yet may be passivated.
  await t.notThrowsAsync(node.host.sweep(Date.now() + 60 * 60_000));
  await t.notThrowsAsync(node.stop());
  node.snapshotReadDelayMs = 0;
  await node.boot();
  const state = await node.client.ask<CounterState>(actor('pinned'), { type: 'get' });
  t.deepEqual([state.values, state.rests], [[-1], 2]);
});

test('state survives a crash before any checkpoint: recovery replays the journal', async (t) => {
  const node = await start(t);
  for (let i = 0; i < 10; i++) await node.client.ask(actor('durable'), { type: 'add', value: i });
  await node.abandon();
  await node.boot();
  const state = await node.client.ask<CounterState>(actor('durable'), { type: 'get' });
  t.deepEqual(state.values, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
});

test('checkpoints move state into the store: after a clean stop the journal is not needed', async (t) => {
  const node = await start(t, new Probe(), { checkpointEvery: 5 });
  for (let i = 0; i < 12; i++) await node.client.ask(actor('cp'), { type: 'add', value: i });
  await node.host.whenIdle();
  await node.host.sweep();
  t.true(node.host.stats.checkpoints > 0);
  await node.stop();
  await rm(join(node.dir, 'journal'), { recursive: true });
  await node.boot();
  const state = await node.client.ask<CounterState>(actor('cp'), { type: 'get' });
  t.is(state.values.length, 12);
});

test('a full mailbox refuses new messages with OVERLOADED', async (t) => {
  const probe = new Probe();
  const node = await start(t, probe, { mailboxCapacity: 3 });
  probe.hold();
  const asks = Array.from({ length: 8 }, (_, i) =>
    node.client.ask(actor('busy'), { type: 'add', value: i }).then(
      () => 'ok',
      (err: ChatError) => err.code,
    ),
  );
  await waitFor(() => node.host.stats.refusedFull > 0);
  probe.release();
  const outcomes = await Promise.all(asks);
  t.true(outcomes.includes('OVERLOADED'));
  t.true(outcomes.includes('ok'));
  t.is(outcomes.filter((o) => o === 'ok').length + node.host.stats.refusedFull, 8);
});

test('timers fire into the actor and stop with it', async (t) => {
  const node = await start(t, new Probe(), { passivateAfterMs: 60_000 });
  await node.client.ask(actor('timer'), { type: 'arm', name: 'tick', ms: 10 });
  await waitFor(async () => (await node.client.ask<CounterState>(actor('timer'), { type: 'get' })).fired.length === 1);
  await node.client.ask(actor('timer'), { type: 'arm', name: 'late', ms: 100 });
  await node.host.whenIdle();
  await node.host.sweep(Date.now() + 120_000);
  t.is(node.host.stats.live, 0);
  await new Promise((resolve) => setTimeout(resolve, 300));
  const state = await node.client.ask<CounterState>(actor('timer'), { type: 'get' });
  t.deepEqual(state.fired, ['tick']);
});

test('a failed append is not applied: the actor is rebuilt from what is durable', async (t) => {
  const node = await start(t);
  await node.client.ask(actor('fragile'), { type: 'add', value: 1 });
  node.failNextAppend = true;
  const err = await t.throwsAsync(node.client.ask(actor('fragile'), { type: 'add', value: 2 }));
  t.is((err as ChatError).code, 'OVERLOADED');
  await node.client.ask(actor('fragile'), { type: 'add', value: 3 });
  const state = await node.client.ask<CounterState>(actor('fragile'), { type: 'get' });
  t.deepEqual(state.values, [1, 3]);
  await node.abandon();
  await node.boot();
  t.deepEqual((await node.client.ask<CounterState>(actor('fragile'), { type: 'get' })).values, [1, 3]);
});

test('a retry of a write whose append fails is not confirmed either', async (t) => {
  const node = await start(t);
  node.failNextAppend = true;
  const outcomes = await Promise.all(
    [1, 2].map(() =>
      node.client.ask(actor('retry'), { type: 'add', value: 9 }, { idempotencyKey: 'same' }).then(
        () => 'ok',
        (err: ChatError) => err.code,
      ),
    ),
  );
  t.deepEqual(outcomes, ['OVERLOADED', 'OVERLOADED']);
  t.deepEqual((await node.client.ask<CounterState>(actor('retry'), { type: 'get' })).values, []);
});

test('a message that arrives while its actor is being passivated sees the latest state', async (t) => {
  const node = await start(t, new Probe(), { passivateAfterMs: 60_000 });
  for (let i = 0; i < 20; i++) await node.client.ask(actor('racy'), { type: 'add', value: i });
  await node.host.whenIdle();
  node.storeDelayMs = 50;
  const sweeping = node.host.sweep(Date.now() + 120_000);
  const state = await node.client.ask<CounterState>(actor('racy'), { type: 'get' });
  await sweeping;
  t.is(node.host.stats.passivations, 1);
  t.is(state.values.length, 20);
});

test('a held reply is answered by a later message, after that message is durable', async (t) => {
  const node = await start(t);
  const poll = node.client.ask(actor('poller'), { type: 'wait', after: 0, ms: 5000 });
  await node.host.whenIdle();
  t.is(node.host.stats.live, 1);
  await node.client.ask(actor('poller'), { type: 'add', value: 7 });
  t.deepEqual(await poll, [7]);
});

test('a held reply is released by its timer, and keeps its actor from passivating', async (t) => {
  const node = await start(t, new Probe(), { passivateAfterMs: 1 });
  const poll = node.client.ask(actor('sleepy'), { type: 'wait', after: 0, ms: 300 });
  await new Promise((resolve) => setTimeout(resolve, 100));
  await node.host.sweep(Date.now() + 60_000);
  t.is(node.host.stats.passivations, 0);
  t.is(await poll, 'timeout');
});

test('a client that knows the shard map sends a fan-out once per owning host', async (t) => {
  const node = await start(t, new Probe(), { hostId: 'h1' });
  const client = untyped(
    new TransportActorClient(node.transport, {
      shardCount: 4,
      defaultTimeoutMs: 2000,
      ownerOf: () => 'h1',
    }),
  );
  const keys = Array.from({ length: 40 }, (_, i) => `host-fan-${i}`);
  const subjects: string[] = [];
  const publish = node.transport.publish.bind(node.transport);
  node.transport.publish = (subject, data) => {
    subjects.push(subject);
    publish(subject, data);
  };
  client.fanout('user', keys, { type: 'add', value: 1 });
  await waitFor(async () => {
    const states = await Promise.all(keys.map((key) => node.client.ask<CounterState>(actor(key), { type: 'get' })));
    return states.every((state) => state.values.length === 1);
  });
  t.deepEqual(subjects, ['host.h1.fanout']);
});

test('a fan-out reaches every key with one message per shard', async (t) => {
  const node = await start(t);
  const keys = Array.from({ length: 40 }, (_, i) => `fan-${i}`);
  let published = 0;
  const publish = node.transport.publish.bind(node.transport);
  node.transport.publish = (subject, data) => {
    published++;
    publish(subject, data);
  };
  await node.client.ask(actor('source'), { type: 'spread', keys });
  await waitFor(async () => {
    const states = await Promise.all(keys.map((key) => node.client.ask<CounterState>(actor(key), { type: 'get' })));
    return states.every((state) => state.values.length === 1);
  });
  t.true(published <= 4, `${published} messages for 40 actors on 4 shards`);
});

test('a fan-out is handed to its local actors a slice a turn, and each actor gets what came on one subject in order', async (t) => {
  const probe = new Probe();
  const node = await start(t, probe);
  const keys = Array.from({ length: 3 * TURN_HANDOVERS }, (_, i) => `slice-${i}`);
  // Awake first: a new actor's first message waits for its snapshot to be read, which spreads the work by itself.
  await Promise.all(keys.map((key) => node.client.ask(actor(key), { type: 'get' })));
  const before = probe.handled;
  node.client.fanout('user', keys, { type: 'addSoftly', value: 1 });
  node.client.fanout('user', keys, { type: 'addSoftly', value: 2 });
  // On the keys' shard subjects, as the fan-outs (this client knows no hosts): behind them.
  for (const key of keys) node.client.tell(actor(key), { type: 'addSoftly', value: 3 });
  const firstTurn = await new Promise<number>((resolve) => setImmediate(() => resolve(probe.handled - before)));
  t.true(firstTurn <= TURN_HANDOVERS, `${firstTurn} actors decided in the first turn`);
  await waitFor(() => probe.handled - before === 3 * keys.length, 60_000);
  const states = await Promise.all(keys.map((key) => node.client.ask<CounterState>(actor(key), { type: 'get' })));
  t.deepEqual(states.filter((state) => state.values.join() !== '1,2,3').length, 0);
});
