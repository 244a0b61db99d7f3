import test from 'ava';
import type { ChannelCommand, QueueEvent, UserRef } from '@chat/protocol';
import { channel, created, person, realmSettings } from './fixtures.js';

const ref = (user_id: number): UserRef => ({
  user_id,
  email: `user${user_id}@zulip.com`,
  full_name: `User ${user_id}`,
  role: 400,
  is_bot: false,
  is_active: true,
  bot_owner_id: null,
});

const add = (user_id: number): QueueEvent => ({ type: 'realm_user', op: 'add', person: { user_id } }) as QueueEvent;

const subscribe = (ids: number[], first?: Array<{ user_id: number; events: QueueEvent[] }>): ChannelCommand => ({
  type: 'channel.subscribe',
  actor: person(2),
  users: ids.map(ref),
  settings: realmSettings(),
  ...(first ? { first } : {}),
});

interface Delivery {
  keys: string[];
  body: { type: string; events?: Array<{ type: string; op?: string }> };
}
const deliveries = (fanouts: unknown[]) =>
  (fanouts as Delivery[])
    .filter((f) => f.body.type === 'user.deliver')
    .map((f) => ({ keys: [...f.keys].sort(), events: f.body.events!.map((e) => `${e.type} ${e.op}`) }));

test("a present subscriber's first events go in his own delivery, ahead of the peer_add; the others get the peer_add alone", async (t) => {
  const kit = channel(10, created(10, [2, 3, 4]));
  const done = await kit.run(subscribe([5], [{ user_id: 3, events: [add(5)] }]));
  t.is(done.error, undefined);
  t.deepEqual(deliveries(done.fanouts), [
    { keys: ['zulip:2', 'zulip:4'], events: ['subscription peer_add'] },
    { keys: ['zulip:3'], events: ['realm_user add', 'subscription peer_add'] },
  ]);
});

test('first events reach nobody when nobody is added, nor a user not subscribed', async (t) => {
  const kit = channel(10, created(10, [2, 3, 4]));
  const none = await kit.run(subscribe([4], [{ user_id: 3, events: [add(4)] }]));
  t.deepEqual(none.fanouts, []);
  const stranger = await kit.run(subscribe([5], [{ user_id: 9, events: [add(5)] }]));
  t.deepEqual(deliveries(stranger.fanouts), [
    { keys: ['zulip:2', 'zulip:3', 'zulip:4'], events: ['subscription peer_add'] },
  ]);
});
