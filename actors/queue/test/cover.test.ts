import test from 'ava';
import {
  invitesChanged,
  peerEvent,
  typingDirect,
  updateMessageEvent,
  type QueueEvent,
  type QueueSpec,
  type UpdateMessageEvent,
} from '@chat/protocol';
import { OPTIONS, queue } from './support.js';

const CHANNEL = 'channel/zulip:10';
const REALM = 'realm/zulip';
/** Pushes events owed by the change at `position` of `actor`, as a user's actor relays them. */
const push = (kit: Awaited<ReturnType<typeof queue>>, events: QueueEvent[], actor?: string, position = 0) =>
  kit.run(
    { type: 'queue.push', events },
    actor === undefined ? {} : { idempotencyKey: `o:${actor}@${position}:0>queue:zulip:q1#0` },
  );

const peerAdd = (user: number): QueueEvent => peerEvent('peer_add', 10, [user]);
const typing: QueueEvent = typingDirect('start', { user_id: 2, email: 'user2@zulip.test' }, []);
const update = (fields: Partial<UpdateMessageEvent>): QueueEvent =>
  updateMessageEvent({
    user_id: 2,
    edit_timestamp: 0,
    message_id: 1,
    message_ids: [1],
    flags: [],
    rendering_only: false,
    ...fields,
  });
const ids = (kit: Awaited<ReturnType<typeof queue>>) => kit.state.events.map((e) => e.id);

test('the cover drops the held events that come from changes the snapshot read, and answers them', async (t) => {
  const kit = await queue();
  await push(kit, [peerAdd(3)], CHANNEL, 5); // id 0: in the snapshot
  await push(kit, [peerAdd(4)], CHANNEL, 9); // id 1: after it
  await push(kit, [typing]); // id 2: no origin, never dropped
  await push(kit, [invitesChanged()], REALM, 3); // id 3: a section the snapshot did not build
  const cover = await kit.run({ type: 'queue.cover', user_id: 2, through: { subscription: { [CHANNEL]: 7 } } });
  t.deepEqual(
    (cover.reply as { events: Array<{ id: number }> }).events.map((e) => e.id),
    [0],
  );
  t.deepEqual(cover.soft, [{ type: 'covered', cover: { subscription: { [CHANNEL]: 7 } }, dropped: [0] }]);
  t.deepEqual(ids(kit), [1, 2, 3]);
  t.is(kit.state.origins, undefined, 'origins are kept only until the cover comes');
});

test('after the cover, events still on their way from a change the snapshot read are dropped as they come', async (t) => {
  const kit = await queue();
  await kit.run({ type: 'queue.cover', user_id: 2, through: { subscription: { [CHANNEL]: 7 } } });
  t.deepEqual((await push(kit, [peerAdd(3)], CHANNEL, 7)).soft, [], 'at the position read');
  t.deepEqual((await push(kit, [peerAdd(3)], 'channel/zulip:11', 2)).soft.length, 1, 'another actor');
  t.deepEqual((await push(kit, [peerAdd(3)], CHANNEL, 8)).soft.length, 1, 'a later change');
  const pushed = await push(kit, [peerAdd(4)], CHANNEL, 10);
  t.is(pushed.soft[0]?.type === 'pushed' && pushed.soft[0].origin, undefined, 'no origin kept after the cover');
});

test('a move to another channel is never dropped: the two conversations were read at different moments', async (t) => {
  const kit = await queue();
  const move = update({ new_stream_id: 11, stream_id: 10 });
  const edit = update({ content: 'x' });
  await push(kit, [move], CHANNEL, 5);
  await push(kit, [edit], CHANNEL, 5);
  await kit.run({ type: 'queue.cover', user_id: 2, through: { update_message: { [CHANNEL]: 9 } } });
  t.deepEqual(ids(kit), [0]);
  t.is((await push(kit, [move], CHANNEL, 6)).soft.length, 1);
});

test('events of types the queue did not ask for are dropped on arrival', async (t) => {
  const kit = await queue({ event_types: ['subscription'] });
  t.deepEqual((await push(kit, [typing])).soft, []);
  t.is((await push(kit, [peerAdd(3), typing])).soft.length, 1);
  t.deepEqual(ids(kit), [0]);
});

test('a queue whose client stopped reading is collected when full, and its waiting poll learns it', async (t) => {
  const kit = await queue({}, { ...OPTIONS, maxEvents: 2 });
  t.is((await push(kit, [peerAdd(3), peerAdd(4)])).soft[0]?.type, 'pushed', 'full, not more');
  const poll = await kit.run({ type: 'queue.get', user_id: 2, last_event_id: 1, dont_block: false });
  t.is(poll.hold, 'poll');
  const full = await push(kit, [peerAdd(5), peerAdd(6), peerAdd(7)]);
  t.deepEqual(full.soft, [{ type: 'collected', reason: 'full' }]);
  t.deepEqual(full.tells, [
    { to: { type: 'user', key: 'zulip:2' }, body: { type: 'user.removeQueue', queue_id: 'q1' } },
  ]);
  t.is(full.released[0]?.error?.code, 'BAD_EVENT_QUEUE_ID');
  const later = await kit.run({ type: 'queue.get', user_id: 2, last_event_id: 0, dont_block: true });
  t.is(later.error?.code, 'BAD_EVENT_QUEUE_ID');
  t.deepEqual((await push(kit, [peerAdd(6)])).tells, full.tells, 'a push to a gone queue repeats the removal');
});

test('an idle queue is collected by its timer, unless a poll is waiting', async (t) => {
  const kit = await queue();
  await kit.run({ type: 'queue.get', user_id: 2, last_event_id: -1, dont_block: false });
  const [heartbeat, ...rest] = await kit.advance(OPTIONS.heartbeatMs);
  t.deepEqual(rest, []);
  t.deepEqual(
    (heartbeat?.released[0]?.reply as { events: QueueEvent[] }).events.map((e) => e.type),
    ['heartbeat'],
  );
  await kit.run({ type: 'queue.get', user_id: 2, last_event_id: 0, dont_block: false });
  const waiting = await kit.fire('idle');
  t.deepEqual(waiting.events, [], 'a waiting poll keeps the queue');
  t.true(kit.timers.has('idle'));
  await kit.run({ type: 'queue.get', user_id: 2, last_event_id: 0, dont_block: true });
  const idle = await kit.fire('idle');
  t.deepEqual(idle.soft, [{ type: 'collected', reason: 'idle' }]);
  t.is(idle.released.length, 0);
});

test('acknowledging is soft, and an acknowledgement older than one already made is refused', async (t) => {
  const kit = await queue();
  await push(kit, [peerAdd(3), peerAdd(4), peerAdd(5)]);
  const ack = await kit.run({ type: 'queue.get', user_id: 2, last_event_id: 1, dont_block: true });
  t.deepEqual(ack.soft, [{ type: 'acknowledged', through: 1 }]);
  t.deepEqual(ack.events, []);
  t.deepEqual(ids(kit), [2]);
  const stale = await kit.run({ type: 'queue.get', user_id: 2, last_event_id: 0, dont_block: true });
  t.is(stale.error?.message, 'An event newer than 0 has already been pruned!');
  t.is(
    (await kit.run({ type: 'queue.get', user_id: 3, last_event_id: 1, dont_block: true })).error?.code,
    'BAD_EVENT_QUEUE_ID',
  );
});

test('a poll that has the spec (has_spec) gets answers without it, waiting or not; others get it', async (t) => {
  const kit = await queue({ apply_markdown: false });
  await push(kit, [typing]); // id 0
  const now = await kit.run({ type: 'queue.get', user_id: 2, last_event_id: -1, dont_block: true, has_spec: true });
  t.deepEqual(Object.keys(now.reply as object), ['events']);
  const full = await kit.run({ type: 'queue.get', user_id: 2, last_event_id: -1, dont_block: true });
  t.is((full.reply as { spec: QueueSpec }).spec.apply_markdown, false);
  const bare = await kit.run({ type: 'queue.get', user_id: 2, last_event_id: 0, dont_block: false, has_spec: true });
  t.is(bare.hold, 'poll-bare');
  // A newer poll, without the spec, replaces it: the one replaced is answered as it asked, bare.
  const asking = await kit.run({ type: 'queue.get', user_id: 2, last_event_id: 0, dont_block: false });
  t.is(asking.hold, 'poll');
  t.deepEqual(asking.released[0]?.reply, { events: [] });
  const answered = await push(kit, [typing]);
  t.deepEqual(Object.keys(answered.released[0]?.reply as object), ['events', 'spec']);
  // Waiting bare, the heartbeat's answer is bare too.
  await kit.run({ type: 'queue.get', user_id: 2, last_event_id: 1, dont_block: false, has_spec: true });
  const [heartbeat] = await kit.advance(OPTIONS.heartbeatMs);
  const beat = heartbeat?.released[0]?.reply as { events: QueueEvent[]; spec?: QueueSpec };
  t.deepEqual([beat.events.map((e) => e.type), beat.spec], [['heartbeat'], undefined]);
});
