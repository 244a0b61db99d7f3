import type { ActorAddress } from '@chat/protocol';
import { checkpointDue, shardOf, type CheckpointPolicy } from '../src/index.js';
import { counterBehavior, Probe, type CounterState } from './counter.js';
import { nodeTest, TestNode } from './node.js';

const test = nodeTest();

const policy: CheckpointPolicy = { every: 100, perActor: 8, maxRecords: 1000, afterMs: 10_000 };

test('nothing unsaved: never due, however long ago', (t) => {
  t.false(checkpointDue(0, 5, 60_000, policy));
});

test('few changed actors: due after `every` records', (t) => {
  t.false(checkpointDue(99, 1, 0, policy));
  t.true(checkpointDue(100, 1, 0, policy));
  t.true(checkpointDue(100, 12, 0, policy)); // 8 × 12 = 96 < 100
});

test('many changed actors (a fan-out): due after `perActor` records per changed actor', (t) => {
  // 50 queues, one record each: a plain `every` of 50 would snapshot once per record.
  t.false(checkpointDue(399, 50, 0, policy));
  t.true(checkpointDue(400, 50, 0, policy));
});

test('the wait per actor is capped by `maxRecords`, so a replay stays bounded', (t) => {
  t.false(checkpointDue(999, 1000, 0, policy));
  t.true(checkpointDue(1000, 1000, 0, policy));
});

test('the time bound holds whatever the counts', (t) => {
  t.false(checkpointDue(1, 1000, 9_999, policy));
  t.true(checkpointDue(1, 1000, 10_000, policy));
});

const actor = (key: string): ActorAddress => ({ type: 'user', key });

test('a host checkpoints a fan-out partition once per `perActor` records per actor, not per `every`', async (t) => {
  const node = await TestNode.start([counterBehavior(new Probe())], { checkpointEvery: 10, checkpointPerActor: 4 });
  t.context.nodes.push(node);
  // Twenty actors of one shard (of the node's 4): one partition.
  const keys = Array.from({ length: 200 }, (_, i) => `fan${i}`)
    .filter((key) => shardOf(actor(key), 4) === 0)
    .slice(0, 20);
  t.is(keys.length, 20);
  const round = async (value: number) => {
    await Promise.all(keys.map((key) => node.client.ask(actor(key), { type: 'add', value })));
    await node.host.whenIdle();
    await node.host.sweep();
  };
  for (let i = 0; i < 3; i++) await round(i);
  // 60 records over 20 actors: past `every` (10) but short of 4 × 20.
  t.is(node.host.stats.checkpoints, 0);
  await round(3);
  t.is(node.host.stats.checkpoints, 1);
  t.is(node.host.stats.snapshots, 20, 'one snapshot per changed actor for 80 records');
  // What the checkpoint saved is what a restart without the journal's older records sees.
  await node.abandon();
  await node.boot();
  const state = await node.client.ask<CounterState>(actor(keys[7]!), { type: 'get' });
  t.deepEqual(state.values, [0, 1, 2, 3]);
});
