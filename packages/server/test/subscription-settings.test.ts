import type { ChatClient } from '@chat/testkit';
import { channelId, withServer } from './context.js';
import { next, of, register, snapshotOf, type Event } from './queues.js';
import { ok, refused, succeeds, type Body } from './replies.js';

/**
 * A subscriber's own settings of a channel: POST
 * /users/me/subscriptions/properties changes them, `subscription update`
 * events tell the user's queues, and GET /users/me/subscriptions and the
 * register snapshot show them. PATCH /users/me/subscriptions adds and
 * removes subscriptions in one call.
 */
const test = withServer(['hamlet', 'iago', 'othello']);

type Sub = Body & { stream_id: number; name: string };

const change = (client: ChatClient, changes: Array<{ stream_id: number; property: string; value: unknown }>) =>
  client.post<Body>('/users/me/subscriptions/properties', { subscription_data: JSON.stringify(changes) });

async function subscription(client: ChatClient, id: number): Promise<Sub> {
  const body = await ok(client, 'GET', '/users/me/subscriptions');
  return (body.subscriptions as Sub[]).find((s) => s.stream_id === id)!;
}

async function registered(client: ChatClient, id: number): Promise<Sub> {
  const snapshot = await snapshotOf(client, { fetch_event_types: JSON.stringify(['subscription']) });
  return (snapshot.subscriptions as Sub[]).find((s) => s.stream_id === id)!;
}

const update = (id: number, property: string, value: unknown) =>
  of('subscription', 'update', (e: Event) => e.stream_id === id && e.property === property && e.value === value);

test('each property is changed, sent to the user’s queues and shown by GET and register', async (t) => {
  const { hamlet } = t.context;
  const id = await channelId(hamlet, 'Denmark');
  const queue = await register(hamlet, { event_types: JSON.stringify(['subscription']) });
  const changes = [
    { property: 'color', value: '#e79ab5' },
    { property: 'pin_to_top', value: true },
    { property: 'is_muted', value: true },
    { property: 'desktop_notifications', value: true },
    { property: 'audible_notifications', value: false },
    { property: 'push_notifications', value: true },
    { property: 'email_notifications', value: false },
    { property: 'wildcard_mentions_notify', value: true },
  ];
  await succeeds(
    'POST',
    '/users/me/subscriptions/properties',
    change(
      hamlet,
      changes.map((c) => ({ stream_id: id, ...c })),
    ),
  );
  for (const c of changes) await next(queue, update(id, c.property, c.value));
  // Clients that predate is_muted hear of it as in_home_view, its inverse.
  await next(queue, update(id, 'in_home_view', false));
  for (const read of [await subscription(hamlet, id), await registered(hamlet, id)]) {
    for (const c of changes) t.is(read[c.property], c.value, c.property);
    t.is(read.in_home_view, false);
  }
});

test('in_home_view is the inverse of is_muted, and a mute survives in the snapshot', async (t) => {
  const { othello } = t.context;
  const id = await channelId(othello, 'Verona');
  const queue = await register(othello, { event_types: JSON.stringify(['subscription']) });
  await succeeds(
    'POST',
    '/users/me/subscriptions/properties',
    change(othello, [{ stream_id: id, property: 'in_home_view', value: false }]),
  );
  await next(queue, update(id, 'is_muted', true));
  t.like(await registered(othello, id), { is_muted: true, in_home_view: false });
  await succeeds(
    'POST',
    '/users/me/subscriptions/properties',
    change(othello, [{ stream_id: id, property: 'is_muted', value: false }]),
  );
  await next(queue, update(id, 'in_home_view', true));
  t.like(await subscription(othello, id), { is_muted: false, in_home_view: true });
});

test('refusals as the original’s, and nothing applied when one change of several is refused', async (t) => {
  const { iago, hamlet } = t.context;
  const verona = await channelId(hamlet, 'Verona');
  const before = await subscription(hamlet, verona);
  const one = (property: string, value: unknown, stream_id = verona) =>
    change(hamlet, [
      { stream_id: verona, property: 'pin_to_top', value: !before.pin_to_top },
      { stream_id, property, value },
    ]);
  await refused(t, one('colour', '#fff'), 'Unknown subscription property: colour');
  await refused(t, one('color', 'red'), 'color is not a valid hex color code');
  await refused(t, one('is_muted', 'yes'), 'is_muted is not a boolean');
  await refused(t, one('is_muted', true, 999_999), 'Invalid channel ID');
  // A channel hamlet is not subscribed to.
  const created = await ok(iago, 'POST', '/users/me/subscriptions', {
    subscriptions: JSON.stringify([{ name: 'settings elsewhere' }]),
  });
  t.truthy(created.subscribed);
  const elsewhere = await channelId(iago, 'settings elsewhere');
  await refused(t, one('is_muted', true, elsewhere), `Not subscribed to channel ID ${elsewhere}`);
  // A private channel he cannot see is not there at all.
  await ok(iago, 'POST', '/users/me/subscriptions', {
    subscriptions: JSON.stringify([{ name: 'settings secret' }]),
    invite_only: true,
  });
  const secret = await channelId(iago, 'settings secret');
  await refused(t, one('is_muted', true, secret), 'Invalid channel ID');
  t.is((await subscription(hamlet, verona)).pin_to_top, before.pin_to_top);
});

test('PATCH /users/me/subscriptions subscribes to add and unsubscribes from delete in one call', async (t) => {
  const { othello } = t.context;
  const first = await succeeds<Body>(
    'PATCH',
    '/users/me/subscriptions',
    othello.call<Body>('PATCH', '/users/me/subscriptions', {
      add: JSON.stringify([{ name: 'patch added' }, { name: 'Verona' }]),
    }),
  );
  const me = String((await ok(othello, 'GET', '/users/me')).user_id);
  t.deepEqual(first.subscribed, { [me]: ['patch added'] });
  t.deepEqual(first.already_subscribed, { [me]: ['Verona'] });
  const second = await succeeds<Body>(
    'PATCH',
    '/users/me/subscriptions',
    othello.call<Body>('PATCH', '/users/me/subscriptions', {
      delete: JSON.stringify(['patch added']),
      add: JSON.stringify([{ name: 'patch second' }]),
    }),
  );
  t.like(second, { removed: ['patch added'], not_removed: [], subscribed: { [me]: ['patch second'] } });
  const names = ((await ok(othello, 'GET', '/users/me/subscriptions')).subscriptions as Sub[]).map((s) => s.name);
  t.true(names.includes('patch second'));
  t.false(names.includes('patch added'));
});

test('a color asked for in add is the new subscription’s, for a new channel and an existing one', async (t) => {
  const { iago, othello } = t.context;
  // A channel iago is not in yet.
  await ok(othello, 'POST', '/users/me/subscriptions', {
    subscriptions: JSON.stringify([{ name: 'colored existing' }]),
  });
  await refused(
    t,
    iago.call<Body>('PATCH', '/users/me/subscriptions', {
      add: JSON.stringify([{ name: 'colored refused' }, { name: 'colored existing', color: 'blue' }]),
    }),
    'color is not a valid hex color code',
  );
  const queue = await register(iago, { event_types: JSON.stringify(['subscription']) });
  await succeeds(
    'PATCH',
    '/users/me/subscriptions',
    iago.call<Body>('PATCH', '/users/me/subscriptions', {
      add: JSON.stringify([
        { name: 'colored new', color: '#abcdef' },
        { name: 'colored existing', color: '#123' },
      ]),
    }),
  );
  const added = (name: string) =>
    of('subscription', 'add', (e: Event) => (e.subscriptions as Sub[]).some((s) => s.name === name));
  const colorOf = async (name: string) => ((await next(queue, added(name))).subscriptions as Sub[])[0]!.color;
  t.is(await colorOf('colored new'), '#abcdef');
  t.is(await colorOf('colored existing'), '#123');
  const subs = (await ok(iago, 'GET', '/users/me/subscriptions')).subscriptions as Sub[];
  t.is(subs.find((s) => s.name === 'colored new')!.color, '#abcdef');
  t.is(subs.find((s) => s.name === 'colored existing')!.color, '#123');
  t.false(subs.some((s) => s.name === 'colored refused'));
});
