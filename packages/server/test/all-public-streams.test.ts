import { realmAddress } from '@chat/protocol';
import { assertResponse, checkEvent, type ChatClient } from '@chat/testkit';
import { IDS, withServer } from './context.js';
import { eventsUntil, next, register, type Body, type Event, type Queue } from './queues.js';
import { bodyOf, call } from './replies.js';

/**
 * POST /register's `all_public_streams` (spec 21): such a queue receives the
 * message events of every public channel (web-public ones too), subscribed or
 * not, once each; never a private channel's it is not in; guests may not ask
 * for it. Each test uses a user of its own, since whether a user listens is
 * the user's state, shared by the tests of this file.
 */
const test = withServer(['iago', 'cordelia', 'prospero', 'polonius'], { heartbeatMs: 400 });

const TYPES = ['message', 'user_settings'];

async function channel(creator: ChatClient, name: string, subscribers: number[], inviteOnly: boolean) {
  const params = { name, subscribers: JSON.stringify(subscribers), invite_only: inviteOnly };
  return (await bodyOf<{ id: number }>(creator.post('/channels/create', params))).id;
}

const send = async (client: ChatClient, to: string | number, content: string) =>
  (await bodyOf<{ id: number }>(client.post('/messages', { type: 'stream', to, topic: 'all public', content }))).id;

const messageId = (e: Event) => (e.message as Body).id as number;
const isMessage = (id: number) => (e: Event) => e.type === 'message' && messageId(e) === id;

/** The last value each user's barrier set (the development users start with it off). */
const toggled = new Map<ChatClient, boolean>();

/**
 * The message ids a queue received before a change of the user's own
 * settings, which passes the user's actor after everything it relayed before.
 */
async function messagesBefore(owner: ChatClient, queues: Queue[]): Promise<number[][]> {
  const value = !(toggled.get(owner) ?? false);
  toggled.set(owner, value);
  await bodyOf(owner.patch('/settings', { twenty_four_hour_time: value }));
  const changed = (e: Event) =>
    e.type === 'user_settings' && e.property === 'twenty_four_hour_time' && e.value === value;
  return Promise.all(
    queues.map(async (q) => (await eventsUntil(q, changed)).filter((e) => e.type === 'message').map(messageId)),
  );
}

const count = (ids: number[], id: number) => ids.filter((x) => x === id).length;

test('an all-public queue gets every public channel’s messages once, never a private one’s', async (t) => {
  const { iago, cordelia } = t.context;
  const vault = await channel(iago, 'ap vault', [IDS.iago, IDS.hamlet], true);
  await channel(iago, 'ap open', [IDS.iago, IDS.hamlet], false);
  await channel(iago, 'ap joined', [IDS.iago, IDS.cordelia], false);
  const everyPublic = await register(cordelia, { event_types: TYPES, all_public_streams: true });
  const plain = await register(cordelia, { event_types: TYPES });

  const secret = await send(iago, vault, 'not for cordelia');
  const joined = await send(iago, 'ap joined', 'cordelia is subscribed');
  const open = await send(iago, 'ap open', 'cordelia is not subscribed');
  // Rome is web-public, and cordelia is not in it: web-public counts as public.
  const web = await send(iago, 'Rome', 'web-public');

  const event = await next(everyPublic, isMessage(open));
  t.deepEqual(checkEvent(event).errors, []);
  t.like(event.message as Body, { display_recipient: 'ap open', subject: 'all public', sender_id: IDS.iago });
  // Not a recipient: the original gives such a queue the message with no flags.
  t.deepEqual(event.flags, []);
  t.deepEqual(checkEvent(await next(everyPublic, isMessage(web))).errors, []);

  const [all, some] = await messagesBefore(cordelia, [everyPublic, plain]);
  t.is(count(all!, joined), 1, 'a subscribed channel’s message arrives once');
  t.is(count(all!, open), 1);
  t.false(all!.includes(secret));
  t.deepEqual(
    [joined, open, web, secret].map((id) => count(some!, id)),
    [1, 0, 0, 0],
    'a queue without the flag gets the subscribed channel only',
  );

  // A second all-public queue registered later gets them too, and the first one still does.
  const second = await register(cordelia, { event_types: TYPES, all_public_streams: true });
  const later = await send(iago, 'ap open', 'again');
  t.deepEqual(checkEvent(await next(second, isMessage(later))).errors, []);
  await next(everyPublic, isMessage(later));
  const [, plainLater] = await messagesBefore(cordelia, [second, plain]);
  t.false(plainLater!.includes(later));
});

test('a narrow still applies to an all-public queue', async (t) => {
  const { iago, cordelia } = t.context;
  await channel(iago, 'ap narrowed', [IDS.iago], false);
  await channel(iago, 'ap elsewhere', [IDS.iago], false);
  const narrow = JSON.stringify([['channel', 'ap narrowed']]);
  const queue = await register(cordelia, { event_types: ['message'], all_public_streams: true, narrow });
  const other = await send(iago, 'ap elsewhere', 'outside the narrow');
  const inside = await send(iago, 'ap narrowed', 'inside the narrow');
  // Both travel the same way (channel, realm, cordelia's actor), the second after the first.
  await next(queue, isMessage(inside));
  t.false(queue.seen.some(isMessage(other)));
});

test('a guest may not ask for all public channels', async (t) => {
  const { polonius } = t.context;
  const refused = await call(polonius, 'POST', '/register', { all_public_streams: true });
  t.is(refused.status, 400);
  t.deepEqual(refused.body, { result: 'error', code: 'BAD_REQUEST', msg: 'User not authorized for this query' });
  const allowed = await polonius.post<Body>('/register', { all_public_streams: false, event_types: ['message'] });
  t.is(allowed.status, 200);
  assertResponse('POST', '/register', 200, allowed.body);
});

test('once the last all-public queue is deleted, the realm stops relaying to its user', async (t) => {
  const { server, iago, prospero } = t.context;
  const { actors } = server.server.node;
  const listeners = () => actors.ask(realmAddress('zulip'), { type: 'realm.publicListeners' });
  await channel(iago, 'ap after', [IDS.iago], false);
  t.false((await listeners()).includes(IDS.prospero));
  const everyPublic = await register(prospero, { event_types: TYPES, all_public_streams: true });
  const plain = await register(prospero, { event_types: TYPES });
  t.true((await listeners()).includes(IDS.prospero), 'registering answers after the realm knows');
  const before = await send(iago, 'ap after', 'while listening');
  await next(everyPublic, isMessage(before));

  const deleted = await prospero.delete<Body>('/events', { queue_id: everyPublic.queue_id });
  t.is(deleted.status, 200);
  assertResponse('DELETE', '/events', 200, deleted.body);
  // The queue tells prospero's actor, which tells the realm: owed messages, after the reply.
  t.true(await eventually(async () => !(await listeners()).includes(IDS.prospero)));
  const after = await send(iago, 'ap after', 'nobody listening');
  const [plainSaw] = await messagesBefore(prospero, [plain]);
  t.false(plainSaw!.includes(after));
  t.false(plainSaw!.includes(before));

  // Registering again turns it back on (a newer change than the removal).
  const again = await register(prospero, { event_types: TYPES, all_public_streams: true });
  const third = await send(iago, 'ap after', 'listening again');
  t.deepEqual(checkEvent(await next(again, isMessage(third))).errors, []);
  t.false(again.seen.some(isMessage(after)));
});

/** Polls a condition that an owed message makes true soon; false only after a long while. */
async function eventually(condition: () => Promise<boolean>): Promise<boolean> {
  for (let i = 0; i < 300; i++) {
    if (await condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}
