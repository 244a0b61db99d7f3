import test from 'ava';
import type { QueueEvent } from '@chat/protocol';
import { queue } from './support.js';

// A restricted guest's queue: his snapshot had user 5 (and himself, 2) as people he accesses.
const CHANNEL = 'channel/zulip:10';
const USER = 'user/zulip:2';
const add = (user_id: number, access = true): QueueEvent =>
  ({
    type: 'realm_user',
    op: 'add',
    person: { user_id, full_name: `user ${user_id}` },
    ...(access ? { access } : {}),
  }) as unknown as QueueEvent;
const remove = (user_id: number): QueueEvent => ({
  type: 'realm_user',
  op: 'remove',
  person: { user_id, full_name: 'Unknown user' },
});
const push = (kit: Awaited<ReturnType<typeof queue>>, events: QueueEvent[], actor: string, position: number) =>
  kit.run({ type: 'queue.push', events }, { idempotencyKey: `o:${actor}@${position}:0>queue:zulip:q1#0` });
const held = (kit: Awaited<ReturnType<typeof queue>>) =>
  kit.state.events.map(
    (e) => `${e.type} ${(e as { op: string }).op} ${(e as { person: { user_id: number } }).person.user_id}`,
  );

test('a restricted guest’s queue passes one add per person, whichever change tells it, and a remove only of one he has', async (t) => {
  const kit = await queue();
  await kit.run({ type: 'queue.cover', user_id: 2, through: { realm_user: { [CHANNEL]: 7 } }, accessible: [2, 5] });
  // Cordelia (11) joined his channel as her first direct message to him was sent: the channel's add and his own.
  await push(kit, [add(11)], CHANNEL, 8);
  await push(kit, [add(11)], USER, 3);
  // The snapshot had user 5 through the conversation, though it read the channel before his joining.
  await push(kit, [add(5)], CHANNEL, 9);
  await push(kit, [remove(11)], CHANNEL, 10);
  await push(kit, [remove(11)], CHANNEL, 11);
  // A new account's add is not a change of access: it passes (the poll shows it as at its creation).
  await push(kit, [add(12, false)], USER, 4);
  t.deepEqual(held(kit), ['realm_user add 11', 'realm_user remove 11', 'realm_user add 12']);
  t.deepEqual([...kit.state.accessible!].sort(), [2, 5]);
});

test('adds and removes held until the cover are judged against the snapshot’s people, in order', async (t) => {
  const kit = await queue();
  await push(kit, [add(5)], USER, 2); // id 0: the snapshot has him (through the channel, read after)
  await push(kit, [add(11)], CHANNEL, 8); // id 1: new to it
  await push(kit, [add(11)], USER, 3); // id 2: the same person again
  await push(kit, [remove(13)], CHANNEL, 9); // id 3: not in the snapshot
  const cover = await kit.run({
    type: 'queue.cover',
    user_id: 2,
    through: { realm_user: { [CHANNEL]: 7 } },
    accessible: [2, 5],
  });
  t.deepEqual(cover.soft, [
    { type: 'covered', cover: { realm_user: { [CHANNEL]: 7 } }, dropped: [0, 2, 3], accessible: [2, 5, 11] },
  ]);
  t.deepEqual(held(kit), ['realm_user add 11']);
});

test('a queue whose register said nothing of access passes every add and remove', async (t) => {
  const kit = await queue();
  await kit.run({ type: 'queue.cover', user_id: 2, through: {} });
  await push(kit, [add(11)], CHANNEL, 8);
  await push(kit, [add(11)], USER, 3);
  await push(kit, [remove(13)], CHANNEL, 9);
  t.is(kit.state.accessible, undefined);
  t.is(kit.state.events.length, 3);
});
