import test from 'ava';
import { ROLES, type ChannelCommand, type ChannelSettings, type MoveBegun, type Principal } from '@chat/protocol';
import { channel, created, deleteMessage, info, person, prepared, realmSettings, send } from './fixtures.js';

/**
 * Who has a message (the original's UserMessage rows) and who hears of what
 * happens to it: former subscribers keep what they received.
 */
const [author, stays, leaves, late, outsider] = [person(2), person(3), person(4), person(5), person(6)];

const keysOf = (fanout: unknown) => [...(fanout as { keys: string[] }).keys].sort();
const users = (...ids: number[]) => ids.map((id) => `zulip:${id}`).sort();

const vote = (actor: Principal, message_id: number) =>
  ({
    type: 'submessage.add',
    actor,
    message_id,
    msg_type: 'widget',
    content: '{"type":"vote","key":"canned,0","vote":1}',
  }) as ChannelCommand;
const react = (actor: Principal, message_id: number) =>
  ({
    type: 'reaction.add',
    actor,
    message_id,
    reaction: { emoji_name: 'smile', emoji_code: '1f604', reaction_type: 'unicode_emoji', user_id: actor.user_id },
  }) as ChannelCommand;
const holders = (actor: Principal, message_id: number) =>
  ({ type: 'message.holders', actor, message_id }) as ChannelCommand;

const POLL = '/poll Where?\nPizza\nSushi';

/** Channel 10 of 2, 3 and 4 with a poll of 2; then 4 leaves and 5 joins. */
async function pollThenLeave(changes: Partial<ChannelSettings> = {}) {
  const kit = channel(10, created(10, [2, 3, 4], changes));
  const sent = await kit.run(send(author, 'lunch', { prepared: prepared(POLL) }));
  const id = (sent.reply as { id: number }).id;
  await kit.run({ type: 'channel.unsubscribe', actor: leaves, users: [{ user_id: 4 } as never] });
  await kit.run({
    type: 'channel.subscribe',
    actor: null,
    users: [{ user_id: 5 } as never],
    settings: realmSettings(),
  });
  return { kit, id };
}

test('a former subscriber keeps the messages received: votes reach them, who joined later has none', async (t) => {
  const { kit, id } = await pollThenLeave();
  t.deepEqual(kit.state.members, [2, 3, 5]);
  const voted = await kit.run(vote(stays, id));
  t.is(voted.error, undefined);
  t.deepEqual(keysOf(voted.fanouts[0]), users(2, 3, 4));
  t.deepEqual((await kit.run(holders(stays, id))).reply, [2, 3, 4]);
  // A message sent after leaving is not theirs.
  const after = ((await kit.run(send(author, 'lunch'))).reply as { id: number }).id;
  t.deepEqual((await kit.run(holders(stays, after))).reply, [2, 3, 5]);
  t.deepEqual(kit.replay(), kit.state);
});

test('reactions reach a public channel subscribers and whoever else has the message; reacting gives it', async (t) => {
  const { kit, id } = await pollThenLeave();
  const reacted = await kit.run(react(stays, id));
  t.deepEqual(keysOf(reacted.fanouts[0]), users(2, 3, 4, 5));
  // A non-subscriber who reacts gets a historical row: later events reach them, and votes too.
  const historical = await kit.run(react(outsider, id));
  t.deepEqual(keysOf(historical.fanouts[0]), users(2, 3, 4, 5, 6));
  const rows = (d: typeof reacted) => d.fanouts.filter((f) => (f.body as { type: string }).type === 'user.historical');
  t.deepEqual(rows(historical).map(keysOf), [users(6)], 'the row reads as read, as the original makes it');
  t.deepEqual(rows(reacted), []);
  t.deepEqual((await kit.run(holders(stays, id))).reply, [2, 3, 4, 6]);
  t.deepEqual(keysOf((await kit.run(vote(stays, id))).fanouts[0]), users(2, 3, 4, 6));
  const deleted = await kit.run(deleteMessage(author, id));
  t.is(deleted.error, undefined);
  t.deepEqual(keysOf(deleted.fanouts[0]), users(2, 3, 4, 5, 6));
  t.deepEqual(kit.replay(), kit.state);
});

test('in a private channel only subscribers hear of reactions; with protected history those who have it', async (t) => {
  const shared = await pollThenLeave({ invite_only: true });
  t.deepEqual(keysOf((await shared.kit.run(react(stays, shared.id))).fanouts[0]), users(2, 3, 5));
  // The poll still reaches whoever has it, as the original's submessage events do.
  t.deepEqual(keysOf((await shared.kit.run(vote(stays, shared.id))).fanouts[0]), users(2, 3, 4));
  const hidden = await pollThenLeave({ invite_only: true, history_public_to_subscribers: false });
  t.deepEqual(keysOf((await hidden.kit.run(react(stays, hidden.id))).fanouts[0]), users(2, 3));
  t.is((await hidden.kit.run(react(late, hidden.id))).error?.message, 'Invalid message(s)');
});

test('a guest who left a public channel keeps her votes but hears no reactions there, as in the original', async (t) => {
  const kit = channel(10, created(10, [2, 3, 4]));
  const id = ((await kit.run(send(author, 'lunch', { prepared: prepared(POLL) }))).reply as { id: number }).id;
  await kit.run({ type: 'channel.unsubscribe', actor: leaves, users: [{ user_id: 4, role: ROLES.guest } as never] });
  t.deepEqual(keysOf((await kit.run(react(stays, id))).fanouts[0]), users(2, 3));
  t.deepEqual(keysOf((await kit.run(vote(stays, id))).fanouts[0]), users(2, 3, 4));
  t.deepEqual(kit.replay(), kit.state);
});

test('moving to a private channel tells former subscribers who had the messages that they are gone', async (t) => {
  const { kit, id } = await pollThenLeave();
  const begun = await kit.run({
    type: 'message.moveOut',
    actor: author,
    message_id: id,
    target: info(11, [2], { invite_only: true }),
    propagate_mode: 'change_one',
    settings: realmSettings(),
    guest_ids: [],
  });
  t.is(begun.error, undefined);
  const end = await kit.run({ type: 'message.moveEnd', move_id: (begun.reply as MoveBegun).move.id, done: true });
  const deleted = end.fanouts.find((f) =>
    (f.body as { events?: { type: string }[] }).events?.some((e) => e.type === 'delete_message'),
  );
  t.deepEqual(keysOf(deleted), users(3, 4, 5), '4 left the source, yet had the poll');
});

/** The flags `viewer` sees on message `id`, with nothing read and `starred` starred. */
async function flagsOf(
  kit: Awaited<ReturnType<typeof pollThenLeave>>['kit'],
  viewer: Principal,
  id: number,
  starred: number[] = [],
) {
  const got = await kit.run({
    type: 'message.get',
    viewer: { ...viewer, read: [], starred, unread_own: [] },
    ids: [id],
  });
  return (got.reply as { flags: string[] }[])[0]!.flags;
}

test("flags are the row's: a former subscriber's own, read and historical without one", async (t) => {
  const { kit, id } = await pollThenLeave();
  t.deepEqual(await flagsOf(kit, leaves, id), [], 'received, never read');
  t.deepEqual(await flagsOf(kit, late, id), ['read', 'historical'], 'sent before joining');
  t.deepEqual(await flagsOf(kit, outsider, id), ['read', 'historical']);
});

test('starring or marking unread gives a historical row: the channel names it, and it reaches them', async (t) => {
  const { kit, id } = await pollThenLeave();
  const given = await kit.run({ type: 'message.historical', actor: outsider, message_ids: [id] });
  t.deepEqual(given.reply, [id]);
  t.deepEqual((await kit.run({ type: 'message.historical', actor: outsider, message_ids: [id] })).reply, []);
  t.deepEqual((await kit.run({ type: 'message.historical', actor: leaves, message_ids: [id] })).reply, [], 'has it');
  t.deepEqual(await flagsOf(kit, outsider, id, [id]), ['starred', 'historical'], "its read state is the reader's");
  t.deepEqual((await kit.run(holders(stays, id))).reply, [2, 3, 4, 6]);
  t.deepEqual(keysOf((await kit.run(vote(stays, id))).fanouts[0]), users(2, 3, 4, 6));
  t.deepEqual(keysOf((await kit.run(react(stays, id))).fanouts[0]), users(2, 3, 4, 5, 6));
  t.deepEqual(kit.replay(), kit.state);
});

test('a move keeps the historical rows of who never was subscribed to the source, unless the destination is private', async (t) => {
  const moveTo = async (invite_only: boolean) => {
    const { kit, id } = await pollThenLeave();
    await kit.run({ type: 'message.historical', actor: outsider, message_ids: [id] });
    const begun = await kit.run({
      type: 'message.moveOut',
      actor: author,
      message_id: id,
      target: info(11, [2], { invite_only }),
      propagate_mode: 'change_one',
      settings: realmSettings(),
      guest_ids: [],
    });
    const move = (begun.reply as MoveBegun).move;
    const end = await kit.run({ type: 'message.moveEnd', move_id: move.id, done: true });
    const told = (type: string) => {
      const found = end.fanouts.find((f) =>
        (f.body as { events?: { type: string }[] }).events?.some((e) => e.type === type),
      );
      return found ? keysOf(found) : [];
    };
    return { move, deleted: told('delete_message'), updated: told('update_message') };
  };
  const open = await moveTo(false);
  t.deepEqual(open.move.outsiders, [6], '4 was subscribed: the original drops his row');
  t.like(open.move.messages[0], { holders: [2, 3, 4, 6], historical: [6] });
  t.true(open.updated.includes('zulip:6'));
  const target = channel(11, created(11, [2]));
  await target.run({ type: 'message.moveIn', move: open.move });
  const [moved] = target.state.messages;
  t.like(moved, { holders: [2, 6], historical: [6] });
  const closed = await moveTo(true);
  t.is(closed.move.outsiders, undefined);
  t.deepEqual(closed.deleted, users(3, 4, 5, 6), 'a private destination gives them nothing to read');
});

test('guests are left out of a public channel reactions by their role now: a change is told, a row made as a guest counts', async (t) => {
  const { kit, id } = await pollThenLeave({ is_web_public: true });
  t.is((await kit.run({ type: 'channel.guestRole', user_id: 4, guest: true })).error, undefined);
  t.deepEqual(keysOf((await kit.run(react(author, id))).fanouts[0]), users(2, 3, 5));
  await kit.run({ type: 'channel.guestRole', user_id: 4, guest: false });
  // A guest who stars a web-public message gets a row, but no reactions.
  const guest = person(7, ROLES.guest);
  t.deepEqual((await kit.run({ type: 'message.historical', actor: guest, message_ids: [id] })).reply, [id]);
  t.deepEqual(keysOf((await kit.run(react(late, id))).fanouts[0]), users(2, 3, 4, 5));
  // 5 reacted, so has it now.
  t.deepEqual(keysOf((await kit.run(vote(stays, id))).fanouts[0]), users(2, 3, 4, 5, 7));
  t.deepEqual(kit.replay(), kit.state);
});
