import test from 'ava';
import { ROLES, SYSTEM_GROUPS, type ChannelChanges } from '@chat/protocol';
import { channel, created, person, realmSettings } from './fixtures.js';

/**
 * `channel.knowledge`: the realm says who gained or lost knowledge of the channel through groups or
 * privacy; the channel tells those not subscribed, in the reference's shapes, and changes nothing.
 */
const knowledge = (gained: number[], lost: number[]) => ({ type: 'channel.knowledge' as const, gained, lost });
type Delivered = { events: Array<Record<string, unknown>> };

test('who gained hears stream create then peer_add, who lost stream delete; subscribers hear neither', async (t) => {
  const kit = channel(10, created(10, [1, 3], { invite_only: true }));
  const told = await kit.run(knowledge([3, 4], [1, 5]));
  t.deepEqual(told.events, []);
  t.is(told.reply, null);
  const byKeys = told.fanouts.map((f) => ({ keys: f.keys, events: (f.body as Delivered).events }));
  t.is(byKeys.length, 2);
  t.deepEqual(byKeys[0]!.keys, ['zulip:4']);
  const [create, peers] = byKeys[0]!.events;
  t.like(create, { type: 'stream', op: 'create' });
  t.is((create!.channels as Array<{ stream_id: number }>)[0]!.stream_id, 10);
  t.deepEqual(peers, { type: 'subscription', op: 'peer_add', stream_ids: [10], user_ids: [1, 3] });
  t.deepEqual(byKeys[1], {
    keys: ['zulip:5'],
    events: [{ type: 'stream', op: 'delete', streams: [{ stream_id: 10 }], stream_ids: [10] }],
  });
});

test('only subscribers: nothing is told', async (t) => {
  const kit = channel(10, created(10, [1, 3], { invite_only: true }));
  t.deepEqual((await kit.run(knowledge([3], [1]))).fanouts, []);
});

test('a change of a private channel names the channel in its broadcast and tells the realm its settings after it', async (t) => {
  const kit = channel(10, created(10, [2], { invite_only: true }));
  const changes: ChannelChanges = {
    permissions: { can_subscribe_group: { new: SYSTEM_GROUPS['role:moderators'] } },
  };
  const decided = await kit.run({
    type: 'channel.update',
    actor: person(2, ROLES.administrator),
    changes,
    settings: realmSettings(),
    dry_run: false,
  });
  t.is(decided.error, undefined);
  const bodies = decided.tells.map((tell) => tell.body as Record<string, unknown>);
  t.deepEqual(
    bodies.map((b) => b.type),
    ['realm.broadcast', 'realm.channelChanged'],
  );
  t.like(bodies[0], { to: 'administrators', channel_id: 10 });
  const entry = bodies[1]!.entry as { permissions: Record<string, unknown> };
  t.is(entry.permissions.can_subscribe_group, SYSTEM_GROUPS['role:moderators']);
});

test('channel.report: the channel tells the realm its flags and settings to fill its directory entry, changing nothing', async (t) => {
  const kit = channel(10, created(10, [2], { invite_only: true }));
  const reported = await kit.run({ type: 'channel.report' });
  t.deepEqual(reported.events, []);
  t.deepEqual(
    reported.tells.map((tell) => tell.to),
    [{ type: 'realm', key: 'zulip' }],
  );
  const body = reported.tells[0]!.body as { type: string; fill: boolean; entry: Record<string, unknown> };
  t.like(body, { type: 'realm.channelChanged', fill: true, entry: { channel_id: 10, invite_only: true } });
  t.truthy((body.entry.permissions as Record<string, unknown>).can_subscribe_group);
});
