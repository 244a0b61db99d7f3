import test from 'ava';
import { peerEvent } from '@chat/protocol';
import { BehaviorTestKit } from '@chat/runtime/testkit';
import { OPTIONS, queue as registered } from './support.js';

/** A queue lives in memory: only its registration is journaled; a crash loses it, a graceful stop keeps it. */

const REMOVE = { to: { type: 'user', key: 'zulip:2' }, body: { type: 'user.removeQueue', queue_id: 'q1' } };

const queue = () => registered({}, { ...OPTIONS, maxEvents: 100 });
const push = (kit: BehaviorTestKit<any, any>, user: number, key?: string) =>
  kit.run({ type: 'queue.push', events: [peerEvent('peer_add', 10, [user])] }, key ? { idempotencyKey: key } : {});
const get = (kit: BehaviorTestKit<any, any>, last: number) =>
  kit.run({ type: 'queue.get', user_id: 2, last_event_id: last, dont_block: true });

test('only the registration is journaled: pushes, acknowledgements and collection are soft', async (t) => {
  const kit = await queue();
  const pushed = await push(kit, 3);
  t.deepEqual(pushed.events, []);
  t.is(pushed.soft[0]?.type, 'pushed');
  await get(kit, 0);
  const deleted = await kit.run({ type: 'queue.delete', user_id: 2 });
  t.deepEqual([deleted.events, deleted.soft], [[], [{ type: 'collected', reason: 'deleted' }]]);
  // Recovery from the journal alone: registered, with none of the soft changes.
  t.like(kit.replay(), { status: 'live', events: [], nextId: 0 });
});

test('a push repeated under its key is applied once, though not journaled', async (t) => {
  const kit = await queue();
  await push(kit, 3, 'o:channel/zulip:10@4:0>queue:zulip:q1#0');
  const again = await push(kit, 3, 'o:channel/zulip:10@4:0>queue:zulip:q1#0');
  t.true(again.repeated);
  t.deepEqual(
    kit.state.events.map((e: { id: number }) => e.id),
    [0],
  );
});

test('a queue not saved at rest comes back collected: BAD_EVENT_QUEUE_ID, and its owner forgets it', async (t) => {
  const kit = await queue();
  await push(kit, 3);
  // A crash: the state recovery finds (a checkpoint's snapshot, or the journal) was not saved at rest.
  kit.activate();
  t.like(kit.state, { status: 'gone', reason: 'lost', events: [] });
  t.is((await get(kit, -1)).error?.code, 'BAD_EVENT_QUEUE_ID');
  t.deepEqual((await kit.fire('forget')).tells, [REMOVE], 'the owner is told at once');
  t.deepEqual((await push(kit, 4)).tells, [REMOVE], 'and again by a later push');
});

test('a queue saved at rest goes on with its events, and journals that it resumed before its first change', async (t) => {
  const kit = await queue();
  await push(kit, 3); // id 0
  await push(kit, 4); // id 1
  await get(kit, 0);
  kit.rest().activate();
  t.like(kit.state, { status: 'live', rested: true });
  t.true(kit.timers.has('idle'));
  const first = await push(kit, 5); // id 2
  t.deepEqual(first.events, [{ type: 'resumed' }]);
  t.is(first.soft[0]?.type, 'pushed');
  t.deepEqual((await push(kit, 6)).events, [], 'only once');
  const polled = await get(kit, 0);
  t.deepEqual(
    (polled.reply as { events: Array<{ id: number }> }).events.map((e) => e.id),
    [1, 2, 3],
  );
  // Its snapshot at rest is out of date now: a crash from here finds the queue lost.
  kit.activate();
  t.like(kit.state, { status: 'gone', reason: 'lost' });
});
