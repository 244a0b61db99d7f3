import test from 'ava';
import {
  decode,
  messageLocationKey,
  SYSTEM_GROUPS,
  type ChannelMove,
  type EditPropagation,
  type MoveBegun,
  type Principal,
} from '@chat/protocol';
import { channel, created, info, person, realmSettings, send } from './fixtures.js';

const mover = person(2);
const MEMBERS = [2, 3];
type Kit = ReturnType<typeof channel>;

/** Channel 10 with messages in `lunch` (ids in order of sending) and one in `other`. */
async function source(): Promise<{ kit: Kit; ids: number[] }> {
  const kit = channel(10, created(10, MEMBERS));
  const ids: number[] = [];
  for (const topic of ['lunch', 'lunch', 'other', 'lunch']) {
    const sent = await kit.run(send(mover, topic));
    ids.push((sent.reply as { id: number }).id);
  }
  return { kit, ids };
}

const moveOut = (
  kit: Kit,
  messageId: number,
  mode: EditPropagation,
  changes: {
    actor?: Principal;
    topic?: string;
    settings?: ReturnType<typeof realmSettings>;
    target?: ReturnType<typeof info>;
  } = {},
) =>
  kit.run({
    type: 'message.moveOut',
    actor: changes.actor ?? mover,
    message_id: messageId,
    target: changes.target ?? info(11, MEMBERS),
    ...(changes.topic !== undefined ? { topic: changes.topic } : {}),
    propagate_mode: mode,
    settings: changes.settings ?? realmSettings(),
    guest_ids: [],
  });

const movedIds = (begun: unknown) => (begun as MoveBegun).move.messages.map((m) => m.id);

test('a move records itself at the source, which keeps the messages until the target holds them', async (t) => {
  const { kit, ids } = await source();
  const out = await moveOut(kit, ids[1]!, 'change_all', { topic: 'dinner' });
  t.is(out.error, undefined);
  const begun = out.reply as MoveBegun;
  t.deepEqual(movedIds(begun), [ids[0], ids[1], ids[3]]);
  t.is(begun.move.to, 'zulip:11');
  t.true(begun.moved_all_visible);
  for (const m of begun.move.messages) {
    t.is(m.topic, 'dinner');
    t.like(m.edits.at(-1), { prev_stream: 10, stream: 11, prev_topic: 'lunch', topic: 'dinner' });
  }
  t.deepEqual(
    out.events.map((e) => e.type),
    ['moveStarted'],
  );
  t.is(kit.state.messages.length, 4, 'nothing leaves before the target holds it');
  t.true(kit.timers.has('moves'));
});

test('which messages move: the one named, those after it in its topic, or the whole topic', async (t) => {
  const one = await source();
  t.deepEqual(movedIds((await moveOut(one.kit, one.ids[1]!, 'change_one')).reply), [one.ids[1]]);
  const later = await source();
  const fromSecond = await moveOut(later.kit, later.ids[1]!, 'change_later');
  t.deepEqual(movedIds(fromSecond.reply), [later.ids[1], later.ids[3]]);
  t.false((fromSecond.reply as MoveBegun).moved_all_visible, 'the first message of the topic stays');
});

test('the target imports the messages with their ids, once, and the source then lets them go', async (t) => {
  const { kit, ids } = await source();
  const move = (await moveOut(kit, ids[0]!, 'change_all')).reply as MoveBegun;
  const target = channel(11, created(11, MEMBERS));
  const imported = await target.run({ type: 'message.moveIn', move: move.move });
  t.deepEqual(
    imported.state.messages.map((m) => m.id),
    [ids[0], ids[1], ids[3]],
  );
  for (const id of [ids[0]!, ids[1]!, ids[3]!]) {
    const row = await target.store.get(messageLocationKey('zulip', id));
    t.deepEqual(row && decode(row), { key: 'zulip:11' }, 'the location index points at the target');
  }
  t.is(imported.rows.length, 3);
  const again = await target.run({ type: 'message.moveIn', move: move.move });
  t.deepEqual(again.events, [], 'a repeated import adds nothing');
  const end = await kit.run({ type: 'message.moveEnd', move_id: move.move.id, done: true });
  t.deepEqual(end.reply, { ended: true });
  t.deepEqual(
    kit.state.messages.map((m) => m.id),
    [ids[2]],
  );
  t.deepEqual(kit.state.moving, {});
  t.true(end.fanouts.length > 0, 'the events of the move go out now');
  t.deepEqual((await kit.run({ type: 'message.moveEnd', move_id: move.move.id, done: true })).reply, { ended: false });
});

test('a target that refuses keeps nothing, and the messages stay at the source', async (t) => {
  const { kit, ids } = await source();
  const move = ((await moveOut(kit, ids[0]!, 'change_all')).reply as MoveBegun).move;
  const archived = channel(11, created(11, MEMBERS, { is_archived: true }));
  t.is((await archived.run({ type: 'message.moveIn', move })).error?.message, 'Invalid channel ID');
  const told = await archived.run({ type: 'message.moveIn', move, notify_source: true });
  t.deepEqual(told.tells, [
    { to: { type: 'channel', key: 'zulip:10' }, body: { type: 'message.moveEnd', move_id: move.id, done: false } },
  ]);
  await kit.run(told.tells[0]!.body);
  t.is(kit.state.messages.length, 4);
  t.deepEqual(kit.state.moving, {});
});

test('a move nobody finished is completed by the source: it asks the target again, which tells it how it went', async (t) => {
  const { kit, ids } = await source();
  const move = ((await moveOut(kit, ids[0]!, 'change_all')).reply as MoveBegun).move;
  const [timer] = await kit.advance(30_000);
  t.deepEqual(timer?.tells, [
    { to: { type: 'channel', key: 'zulip:11' }, body: { type: 'message.moveIn', move, notify_source: true } },
  ]);
  const target = channel(11, created(11, MEMBERS));
  const imported = await target.run(timer!.tells[0]!.body);
  t.deepEqual(imported.tells[0]?.body, { type: 'message.moveEnd', move_id: move.id, done: true });
  await kit.run(imported.tells[0]!.body);
  t.deepEqual(
    kit.state.messages.map((m) => m.id),
    [ids[2]],
  );
});

test('messages being moved cannot be moved again until the first move ends', async (t) => {
  const { kit, ids } = await source();
  await moveOut(kit, ids[3]!, 'change_one');
  const again = await moveOut(kit, ids[0]!, 'change_all');
  t.is(again.error?.message, 'These messages are being moved already; try again in a moment.');
  t.is((await moveOut(kit, ids[2]!, 'change_one')).error, undefined, 'another topic may move');
});

test('moving needs the permission to move between channels and to post in the destination', async (t) => {
  const { kit, ids } = await source();
  const nobody = realmSettings({ can_move_messages_between_channels_group: SYSTEM_GROUPS['role:nobody'] });
  t.is(
    (await moveOut(kit, ids[0]!, 'change_one', { settings: nobody })).error?.message,
    "You don't have permission to move this message",
  );
  const closed = info(11, MEMBERS, { can_send_message_group: SYSTEM_GROUPS['role:nobody'] });
  t.is(
    (await moveOut(kit, ids[0]!, 'change_one', { target: closed })).error?.message,
    'You do not have permission to post in this channel.',
  );
  const hidden = info(11, [3], { invite_only: true });
  t.is((await moveOut(kit, ids[0]!, 'change_one', { target: hidden })).error?.message, 'Invalid channel ID');
});

test('the time limit counts from each message, with 20 s of grace; change_all says how many may move', async (t) => {
  const { kit, ids } = await source();
  const settings = realmSettings({ move_messages_between_streams_limit_seconds: 60 });
  await kit.advance(79_000);
  t.is((await moveOut(kit, ids[0]!, 'change_one', { settings })).error, undefined, 'within the grace');
  const late = await source();
  await late.kit.advance(81_000);
  const fresh = await late.kit.run(send(mover, 'lunch'));
  t.is(
    (await moveOut(late.kit, late.ids[0]!, 'change_one', { settings })).error?.message,
    "The time limit for editing this message's channel has passed",
  );
  const all = await moveOut(late.kit, (fresh.reply as { id: number }).id, 'change_all', { settings });
  t.is(all.error?.code, 'MOVE_MESSAGES_TIME_LIMIT_EXCEEDED');
  t.like(all.error?.extra, { total_messages_in_topic: 4, total_messages_allowed_to_move: 1 });
});

test('moved messages name who has them: who had them and is subscribed here, every subscriber with protected history', async (t) => {
  const { kit, ids } = await source();
  const move: ChannelMove = ((await moveOut(kit, ids[0]!, 'change_one')).reply as MoveBegun).move;
  t.deepEqual(move.messages[0]?.holders, MEMBERS);
  // 4 never had it (not in the source): the original gives a public target's subscribers no row.
  const open = channel(11, created(11, [3, 4]));
  t.deepEqual((await open.run({ type: 'message.moveIn', move })).state.messages[0]?.holders, [3]);
  const closed = channel(12, created(12, [2, 4], { invite_only: true, history_public_to_subscribers: false }));
  t.deepEqual((await closed.run({ type: 'message.moveIn', move })).state.messages[0]?.holders, [2, 4]);
});
