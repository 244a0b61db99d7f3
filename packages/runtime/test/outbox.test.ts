import { ChatError, type ActorAddress, type Command } from '@chat/protocol';
import { shardOf, TURN_HANDOVERS, type ActorBehavior, type AnyBehavior } from '../src/index.js';
import { counter as untypedCounter, type CounterEvent, type CounterState } from './counter.js';
import { nodeTest, TestNode, waitFor } from './node.js';
import type { AnyProtocols } from './untyped.js';

// A poster (type realm) records a post, then owes a fan-out of it to counters
// (type user); a counter asked to `pass` changes nothing and passes the value
// on to a counter of type queue: a relay, as a user's events go to its queues.

const test = nodeTest();

type Posted = { type: 'posted'; value: number };
const poster: ActorBehavior<{ posts: number }, Posted, AnyProtocols> = {
  type: 'realm',
  eventVersion: 1,
  initial: () => ({ posts: 0 }),
  handle(_ctx, command: Command) {
    const value = command.value as number;
    const events: Posted[] = [{ type: 'posted', value }];
    if (command.type === 'post') {
      return { events, fanouts: [{ type: 'user', keys: command.keys as string[], body: { type: 'add', value } }] };
    }
    if (command.type === 'relay') {
      const body = { type: 'pass', value, to: command.to };
      return { events, tells: [{ to: { type: 'user', key: command.via as string }, body }] };
    }
    throw new ChatError('BAD_REQUEST', `unknown command ${command.type}`);
  },
  apply: (state) => void state.posts++,
};

function relaying(): AnyBehavior {
  const counter = untypedCounter();
  const relay: ActorBehavior<CounterState, CounterEvent, AnyProtocols> = {
    ...counter,
    handle(ctx, command) {
      if (command.type !== 'pass') return counter.handle(ctx, command);
      const to: ActorAddress<'queue'> = { type: 'queue', key: command.to as string };
      return { tells: [{ to, body: { type: 'add', value: command.value } }] };
    },
  };
  return relay as unknown as AnyBehavior;
}

/** Queues (by key) that refuse for now with "try again", as a queue with a full mailbox would. */
const refusing = new Set<string>();

function refusingQueue(): AnyBehavior {
  const counter = untypedCounter();
  const queue: ActorBehavior<CounterState, CounterEvent, AnyProtocols> = {
    ...counter,
    type: 'queue',
    handle(ctx, command) {
      if (refusing.has(ctx.address.key)) throw new ChatError('OVERLOADED', 'Try again');
      return counter.handle(ctx, command);
    },
  };
  return queue as unknown as AnyBehavior;
}

const behaviors = () => [poster as unknown as AnyBehavior, relaying(), refusingQueue()];
const posterOf = (key = 'p'): ActorAddress => ({ type: 'realm', key });
const user = (key: string): ActorAddress => ({ type: 'user', key });
const queue = (key: string): ActorAddress => ({ type: 'queue', key });

async function start(t: { context: { nodes: TestNode[] } }) {
  const node = await TestNode.start(behaviors());
  t.context.nodes.push(node);
  return node;
}

const valuesOf = async (node: TestNode, to: ActorAddress) =>
  (await node.client.ask<CounterState>(to, { type: 'get' })).values;

test('a fan-out owed by a change reaches its receivers after a crash that came before it was sent', async (t) => {
  const node = await start(t);
  node.unreachable = (subject) => subject.startsWith('actor.user.');
  await node.client.ask(posterOf(), { type: 'post', value: 7, keys: ['a', 'b', 'c'] });
  t.is(node.host.owed, 1, 'the fan-out waits in the outbox');
  await node.abandon();
  node.unreachable = () => false;
  await node.boot();
  await waitFor(() => node.host.owed === 0);
  for (const key of ['a', 'b', 'c']) t.deepEqual(await valuesOf(node, user(key)), [7], key);
});

test('a receiver applies an owed message once, however often it comes', async (t) => {
  const node = await start(t);
  await node.client.ask(posterOf(), { type: 'post', value: 1, keys: ['a', 'b'] });
  await waitFor(() => node.host.owed === 0);
  t.deepEqual(await valuesOf(node, user('a')), [1]);
  // A crash before the next checkpoint: recovery finds the post in the journal and sends its fan-out again.
  await node.abandon();
  node.sent.length = 0;
  await node.boot();
  await waitFor(() => node.host.owed === 0);
  t.true(
    node.sent.some((s) => s.startsWith('actor.user.')),
    'the fan-out was sent again',
  );
  t.deepEqual(await valuesOf(node, user('a')), [1]);
  t.deepEqual(await valuesOf(node, user('b')), [1]);
});

test('what is still owed at a clean stop is kept by the checkpoint and sent after the restart', async (t) => {
  const node = await start(t);
  node.unreachable = (subject) => subject.startsWith('actor.user.');
  await node.client.ask(posterOf(), { type: 'post', value: 3, keys: ['a'] });
  await node.stop(); // checkpoints: the journal record is released, the outbox is in the checkpoint
  node.unreachable = () => false;
  await node.boot();
  await waitFor(() => node.host.owed === 0);
  t.deepEqual(await valuesOf(node, user('a')), [3]);
});

test('a fan-out is sent again to the keys that did not confirm, until they do', async (t) => {
  const node = await start(t);
  const keys = Array.from({ length: 12 }, (_, i) => `k${i}`);
  const down = shardOf(user('k0'), 4);
  node.unreachable = (subject) => subject === `actor.user.${down}`;
  await node.client.ask(posterOf(), { type: 'post', value: 5, keys });
  const reached = keys.filter((k) => shardOf(user(k), 4) !== down);
  await waitFor(async () => (await valuesOf(node, user(reached[0]!))).length === 1);
  t.is(node.host.owed, 1);
  node.sent.length = 0;
  node.unreachable = () => false;
  await waitFor(() => node.host.owed === 0);
  t.deepEqual([...new Set(node.sent)], [`actor.user.${down}`], 'only the shard that missed it is sent to again');
  for (const key of keys) t.deepEqual(await valuesOf(node, user(key)), [5], key);
});

test('a relay confirms only once what it passed on is confirmed', async (t) => {
  const node = await start(t);
  // In this process the relay hands it to the queue's mailbox (no transport): the queue refuses for now.
  refusing.add('q-refusing');
  await node.client.ask(posterOf(), { type: 'relay', value: 9, via: 'u', to: 'q-refusing' });
  await new Promise((resolve) => setTimeout(resolve, 200));
  t.is(node.host.owed, 1, 'the relay did not confirm while the queue refused');
  t.false(
    node.sent.some((subject) => subject.startsWith('actor.queue.')),
    'no queue was asked through the transport',
  );
  refusing.delete('q-refusing');
  await waitFor(() => node.host.owed === 0, 10_000);
  t.deepEqual(await valuesOf(node, { type: 'queue', key: 'q-refusing' }), [9], 'applied once');
});

test('a relay to a receiver whose subject has a fan-out waiting in the line comes behind it', async (t) => {
  const node = await start(t);
  const keys = Array.from({ length: 3 * TURN_HANDOVERS }, (_, i) => `line-${i}`);
  // The fan-out is lined one item per shard, in the order the keys' shards first come: the last key of
  // the last item is handed over in the line's last turn.
  const shardOfKey = (key: string) => shardOf(queue(key), 4);
  const lastShard = [...new Set(keys.map(shardOfKey))].at(-1);
  const last = [...keys].reverse().find((key) => shardOfKey(key) === lastShard)!;
  // Awake first, so that no activation spreads the work by itself.
  await Promise.all([...keys.map((key) => valuesOf(node, queue(key))), valuesOf(node, user('u'))]);
  node.client.fanout('queue', keys, { type: 'add', value: 1 });
  // Owed (it has a key), so the user's decision is a relay, made while most of the fan-out is still lined.
  await node.client.ask(user('u'), { type: 'pass', value: 2, to: last }, { idempotencyKey: 'o:test@1:0' });
  await waitFor(async () => (await valuesOf(node, queue(last))).length === 2);
  t.deepEqual(await valuesOf(node, queue(last)), [1, 2]);
});
