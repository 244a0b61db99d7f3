import { SYSTEM_GROUPS } from '@chat/protocol';
import { expectOk } from './matrix-fixtures.js';
import { newPerson } from './people.js';
import { channelId, withServer } from './context.js';
import { eventsUntil, register, snapshotOf, type Body } from './queues.js';

/**
 * What a guest must not learn of the public channels he is not in (the
 * original's guests see only their own channels and the web-public ones):
 * not in any section of the register snapshot, whatever it is asked for,
 * and not by events. The permission matrix covers routes; this file covers
 * the snapshot and the queue.
 */
const test = withServer(['iago', 'polonius', 'hamlet']);
const POLONIUS = 13;

/** Every channel id a value names, anywhere inside it (`stream_id`, `stream_ids`, the default-channel list). */
function channelIdsIn(value: unknown, key = '', into = new Set<number>()): Set<number> {
  if (Array.isArray(value)) {
    for (const item of value) {
      if (typeof item === 'number' && /stream|channel/.test(key)) into.add(item);
      else channelIdsIn(item, key, into);
    }
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if ((k === 'stream_id' || k === 'channel_id') && typeof v === 'number') into.add(v);
      else channelIdsIn(v, k, into);
    }
  }
  return into;
}

/** The channels the guest may know: his subscriptions and the web-public ones. */
async function knowable(t: { context: { polonius: import('@chat/testkit').ChatClient } }): Promise<Set<number>> {
  const streams = await expectOk(
    t.context.polonius.get<{ streams: Array<{ stream_id: number }> }>('/streams', { include_web_public: true }),
  );
  return new Set(streams.streams.map((s) => s.stream_id));
}

test.serial('no register section names a public channel the guest is not in', async (t) => {
  const { iago, polonius } = t.context;
  const denmark = await channelId(iago, 'Denmark');
  const allowed = await knowable(t);
  t.false(allowed.has(denmark), 'the guest is not in Denmark');
  const everything = await snapshotOf(polonius, { include_subscribers: true });
  const sections: Body[] = [
    everything,
    await snapshotOf(polonius, { fetch_event_types: ['subscription'] }),
    await snapshotOf(polonius, { fetch_event_types: ['stream', 'default_streams'] }),
  ];
  for (const snapshot of sections) {
    const leaked = [...channelIdsIn(snapshot)].filter((id) => !allowed.has(id));
    t.deepEqual(leaked, [], `channels the guest may not know: ${JSON.stringify(leaked)}`);
  }
  const never = everything.never_subscribed as Array<{ name: string; is_web_public: boolean }>;
  t.deepEqual(
    never.map((c) => [c.name, c.is_web_public]),
    [['Rome', true]],
    'the web-public channel only',
  );
  t.deepEqual(everything.realm_default_streams, []);
  // A member still hears of the public channels he is not in.
  const member = await snapshotOf(t.context.hamlet, { fetch_event_types: ['subscription'] });
  t.true(channelIdsIn(member.never_subscribed).size > 0);
});

test.serial('a new public channel and its subscribers reach members, not the guest', async (t) => {
  const { iago, polonius, hamlet } = t.context;
  const guest = await register(polonius, { event_types: ['stream', 'subscription'] });
  const member = await register(hamlet, { event_types: ['stream', 'subscription'] });
  const created = await expectOk(
    iago.post<{ id: number }>('/channels/create', { name: 'guest leak check', subscribers: [11] }),
  );
  const named = (e: Body) => e.type === 'stream' && e.op === 'create' && channelIdsIn(e.streams).has(created.id);
  await eventsUntil(member, named);
  const subscribe = (name: string, principals: number[]) =>
    expectOk(iago.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name }]), principals }));
  await subscribe('guest leak check', [10]);
  await eventsUntil(member, (e) => e.type === 'subscription' && e.op === 'add');
  // A channel the guest is added to, after both: what came before its event has arrived.
  await subscribe('guest marker', [POLONIUS]);
  const seen = await eventsUntil(guest, (e) => e.type === 'subscription' && e.op === 'add');
  const leaked = seen.filter((e) => channelIdsIn(e).has(created.id));
  t.deepEqual(leaked, []);
});

test.serial(
  'with can_access_all_users_group at members, the guest learns nothing of a user he shares nothing with',
  async (t) => {
    const { iago, polonius } = t.context;
    const secret = await newPerson(t.context, 'Secret Neighbour');
    const subs = await expectOk(
      secret.client.get<{ subscriptions: Array<{ name: string }> }>('/users/me/subscriptions'),
    );
    if (subs.subscriptions.length > 0)
      await expectOk(
        secret.client.delete('/users/me/subscriptions', {
          subscriptions: JSON.stringify(subs.subscriptions.map((s) => s.name)),
        }),
      );
    await expectOk(secret.client.post('/users/me/presence', { status: 'active' }));
    await expectOk(secret.client.post('/users/me/status', { status_text: 'neighbourly' }));
    const setting = (group: number) =>
      expectOk(iago.patch('/realm', { can_access_all_users_group: JSON.stringify({ new: group }) }));
    await setting(SYSTEM_GROUPS['role:members']);
    try {
      for (const params of [{}, { slim_presence: true }, { client_capabilities: { user_list_incomplete: true } }]) {
        const snapshot = await snapshotOf(polonius, params);
        const text = JSON.stringify(snapshot);
        t.false(text.includes('Secret Neighbour'));
        t.false(text.includes('neighbourly'));
        t.false(text.includes(secret.email));
        t.false(String(secret.user_id) in (snapshot.user_status as Body));
        t.false(String(secret.user_id) in (snapshot.presences as Body));
      }
      const users = await expectOk(polonius.get<{ members: Array<{ user_id: number }> }>('/users'));
      t.false(users.members.some((u) => u.user_id === secret.user_id));
    } finally {
      await setting(SYSTEM_GROUPS['role:everyone']);
    }
    t.true(JSON.stringify(await snapshotOf(polonius, {})).includes('Secret Neighbour'), 'with the setting off he does');
  },
);
