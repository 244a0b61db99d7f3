import test from 'ava';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChatError, type ActorAddress } from '@chat/protocol';
import { FileJournal, InProcessTransport, LevelStore } from '@chat/embedded';
import { ActorHost, shardOf, TransportActorClient, typedClient } from '../src/index.js';
import { untyped } from './untyped.js';
import { counterBehavior, Probe, type CounterState } from './counter.js';

const SHARDS = 2;

/** Two hosts over one journal, store and transport, as two cluster processes over shared engines. */
async function pair(t: { teardown(fn: () => Promise<void>): void }, probe = new Probe()) {
  const dir = await mkdtemp(join(tmpdir(), 'handoff-test-'));
  const transport = new InProcessTransport();
  const journal = await FileJournal.open(join(dir, 'journal'));
  const store = await LevelStore.open(join(dir, 'store'));
  const client = untyped(
    new TransportActorClient(transport, { shardCount: SHARDS, defaultTimeoutMs: 1000, maxWaiting: 100 }),
  );
  const host = (hostId: string) =>
    new ActorHost({
      hostId,
      transport,
      journal,
      store,
      actors: typedClient(client),
      behaviors: [counterBehavior(probe)],
      shardCount: SHARDS,
      shards: [],
    });
  const a = host('a');
  const b = host('b');
  await a.start();
  await b.start();
  t.teardown(async () => {
    await a.stop();
    await b.stop();
    await transport.close();
    await journal.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });
  return { a, b, client, store, transport };
}

const alice: ActorAddress = { type: 'user', key: 'alice' };
const shard = shardOf(alice, SHARDS);

test('a shard handed off keeps every acknowledged write, and the new owner fences the old one', async (t) => {
  const { a, b, client } = await pair(t);
  await a.addShard(shard, 1);
  for (const value of [1, 2, 3]) await client.ask(alice, { type: 'add', value });
  await a.removeShard(shard);
  t.deepEqual(a.shards, []);
  await b.addShard(shard, 2);
  await client.ask(alice, { type: 'add', value: 4 });
  const state = await client.ask<CounterState>(alice, { type: 'get' });
  t.deepEqual(state.values, [1, 2, 3, 4]);
  // The old epoch can no longer take the shard back.
  await t.throwsAsync(a.addShard(shard, 1), { name: 'FencedError' });
});

test('a host whose lease ran out takes no message and writes nothing for the shard', async (t) => {
  const { a, b, client } = await pair(t);
  let leased = true;
  await a.addShard(shard, 1, () => leased);
  await client.ask(alice, { type: 'add', value: 1 });
  leased = false;
  const refused = await t.throwsAsync(client.ask(alice, { type: 'add', value: 2 }));
  t.true(refused instanceof ChatError);
  // The next owner recovers only what the first one wrote while it held the lease.
  await a.removeShard(shard, true);
  await b.addShard(shard, 2);
  t.deepEqual((await client.ask<CounterState>(alice, { type: 'get' })).values, [1]);
});

test('an ask that reaches both an old owner whose lease ran out and the next owner is applied once', async (t) => {
  const { a, b, client } = await pair(t);
  let leased = true;
  await a.addShard(shard, 1, () => leased);
  await client.ask(alice, { type: 'add', value: 1 });
  // The lease runs out by a's clock, but a has not dropped the shard yet: it still hears the shard's subject.
  leased = false;
  await b.addShard(shard, 2);
  const sent = await client.ask(alice, { type: 'add', value: 2 }).then(
    () => 'applied',
    (err: Error) => err.message,
  );
  t.deepEqual((await client.ask<CounterState>(alice, { type: 'get' })).values, [1, 2]);
  t.is(sent, 'applied');
});

test('a lost shard is dropped without a checkpoint; the next owner replays the journal', async (t) => {
  const { a, b, client } = await pair(t);
  await a.addShard(shard, 1);
  for (const value of [5, 6]) await client.ask(alice, { type: 'add', value });
  await a.removeShard(shard, true);
  await b.addShard(shard, 2);
  t.deepEqual((await client.ask<CounterState>(alice, { type: 'get' })).values, [5, 6]);
});

test('a fan-out that comes while a shard is handed off makes no actor; the host then stops cleanly', async (t) => {
  const probe = new Probe();
  const { a, client, transport } = await pair(t, probe);
  // A sender whose shard map says host a holds every shard: its fan-outs come to a's own subject.
  const sender = new TransportActorClient(transport, {
    shardCount: SHARDS,
    defaultTimeoutMs: 1000,
    ownerOf: () => 'a',
  });
  const bob = ['bob', 'carol', 'dave', 'erin'].find(
    (key) => key !== alice.key && shardOf({ type: 'user', key }, SHARDS) === shard,
  )!;
  await a.addShard(shard, 1);
  await client.ask(alice, { type: 'add', value: 1 });
  // Alice is busy, so the hand-off waits for her.
  const sleeping = client.ask(alice, { type: 'sleep', ms: 300 });
  while (probe.active === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  const removing = a.removeShard(shard);
  sender.fanout('user', [bob], { type: 'add', value: 1 } as never);
  await sleeping;
  await removing;
  t.is(a.stats.live, 0, 'no actor of the shard handed off is left');
  // An actor left behind has no partition: stopping threw "Cannot read properties of undefined (reading 'comeToRest')".
  await t.notThrowsAsync(a.stop());
});

/** Another actor of alice's shard. */
const bob: ActorAddress = {
  type: 'user',
  key: ['bob', 'carol', 'dave', 'erin', 'frank'].find((key) => shardOf({ type: 'user', key }, SHARDS) === shard)!,
};

test('a lease lost while the shard is handed off drops it once: the hand-off stops there', async (t) => {
  const probe = new Probe();
  const { a, client } = await pair(t, probe);
  await a.addShard(shard, 1);
  await client.ask(alice, { type: 'add', value: 1 });
  const sleeping = client.ask(alice, { type: 'sleep', ms: 300 }).catch(() => 'refused');
  while (probe.active === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  // The hand-off waits for alice; meanwhile the lease is found lost, and the shard dropped.
  const handingOff = a.removeShard(shard);
  await a.removeShard(shard, true);
  await sleeping;
  // It went on with cells and partitions already gone: "Cannot read properties of undefined (reading 'comeToRest')".
  await t.notThrowsAsync(handingOff);
  t.deepEqual([a.shards, a.stats.live], [[], 0]);
});

test('an actor passivated while its shard is handed off is counted once', async (t) => {
  const probe = new Probe();
  const { a, client } = await pair(t, probe);
  await a.addShard(shard, 1);
  await client.ask(bob, { type: 'add', value: 1 });
  await client.ask(alice, { type: 'add', value: 1 });
  t.is(a.stats.live, 2);
  const sleeping = client.ask(alice, { type: 'sleep', ms: 300 });
  while (probe.active === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  const handingOff = a.removeShard(shard);
  // Bob is idle: a sweep passivates him while the hand-off waits for alice.
  await a.sweep(Date.now() + 3_600_000);
  await sleeping;
  await handingOff;
  t.is(a.stats.passivations, 1);
  t.is(a.stats.live, 0, 'bob was counted out by his passivation, and not again by the hand-off');
});

test('writes refused because the lease ran out after their messages were taken are asked again: none is lost', async (t) => {
  const probe = new Probe();
  const { a, client } = await pair(t, probe);
  let leased = true;
  await a.addShard(shard, 1, () => leased);
  await client.ask(alice, { type: 'add', value: 1 });
  probe.hold();
  const adding = [2, 3, 4].map((value) => client.ask(alice, { type: 'add', value }, { timeoutMs: 10_000 }));
  while (probe.active === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  // a took the messages while its lease held; they come to be written while it has run out (a late renewal)...
  leased = false;
  probe.release();
  await new Promise((resolve) => setTimeout(resolve, 200));
  // ...which then comes back: the asks went again and are applied, none refused 'could not be recorded'.
  leased = true;
  const counts = await Promise.all(adding);
  t.deepEqual(counts.map((c) => (c as { count: number }).count).sort(), [2, 3, 4]);
  t.deepEqual([...(await client.ask<CounterState>(alice, { type: 'get' })).values].sort(), [1, 2, 3, 4]);
});

test('a write refused because the lease ran out after its message was taken is asked again of the next owner', async (t) => {
  const probe = new Probe();
  const { a, b, client } = await pair(t, probe);
  let leased = true;
  await a.addShard(shard, 1, () => leased);
  await client.ask(alice, { type: 'add', value: 1 });
  probe.hold();
  const adding = client.ask(alice, { type: 'add', value: 2 }, { timeoutMs: 10_000 });
  while (probe.active === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  // a took the message while its lease held; by the time it writes, the lease has run out and b owns the shard.
  leased = false;
  await b.addShard(shard, 2);
  probe.release();
  t.deepEqual(await adding, { count: 2 });
  t.deepEqual((await client.ask<CounterState>(alice, { type: 'get' })).values, [1, 2]);
});
