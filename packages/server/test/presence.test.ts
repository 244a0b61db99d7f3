import type { ChatClient } from '@chat/testkit';
import { withServer } from './context.js';
import { newPerson } from './people.js';
import { next, register, type Body } from './queues.js';
import { refusal, succeeds } from './replies.js';

/** POST /users/me/presence, GET /realm/presence, GET /users/{user_id_or_email}/presence, events and register. */
const test = withServer(['iago', 'hamlet'], { heartbeatMs: 400 });

type Presences = { presences: Record<string, Body>; presence_last_update_id: number; server_timestamp: number };
const report = (client: ChatClient, params: Body) =>
  succeeds<Presences>('POST', '/users/me/presence', client.post('/users/me/presence', params));
const realmPresence = (client: ChatClient) =>
  succeeds<{ presences: Record<string, Body> }>('GET', '/realm/presence', client.get('/realm/presence'));

test('an active report is read back in every format and by every operation', async (t) => {
  const { hamlet } = t.context;
  const { client, user_id, email } = await newPerson(t.context, 'Online Person');
  const start = Math.floor(Date.now() / 1000);
  const modern = await report(client, { status: 'active', last_update_id: -1 });
  const mine = modern.presences[user_id] as { active_timestamp: number; idle_timestamp: number };
  t.true(mine.active_timestamp >= start && mine.idle_timestamp >= start);
  t.true(modern.presence_last_update_id > 0);

  const legacy = (await realmPresence(hamlet)).presences[email] as Record<string, Body>;
  t.like(legacy.aggregated, { status: 'active', timestamp: mine.active_timestamp });
  t.like(legacy.website, { status: 'active', client: 'website' });

  for (const key of [email, String(user_id)]) {
    const one = await succeeds<{ presence: Record<string, Body> }>(
      'GET',
      `/users/${encodeURIComponent(key)}/presence`,
      hamlet.get(`/users/${encodeURIComponent(key)}/presence`),
    );
    t.deepEqual(one.presence.aggregated, { status: 'active', timestamp: mine.active_timestamp });
  }
  const slim = await register(hamlet, { fetch_event_types: ['presence'], slim_presence: true });
  t.deepEqual((slim.snapshot.presences as Record<string, Body>)[user_id], mine);
  t.is(typeof slim.snapshot.presence_last_update_id, 'number');
  const full = await register(hamlet, { fetch_event_types: ['presence'] });
  t.like((full.snapshot.presences as Record<string, Record<string, Body>>)[email]?.aggregated, { status: 'active' });
});

test('last_update_id answers only what changed since; ping_only answers no presence', async (t) => {
  const first = await newPerson(t.context, 'Early Bird');
  const second = await newPerson(t.context, 'Late Comer');
  const seen = await report(first.client, { status: 'idle', last_update_id: -1 });
  t.true(String(first.user_id) in seen.presences);
  const pinged = await report(second.client, { status: 'active', ping_only: true });
  t.false('presences' in pinged);
  const since = await report(first.client, { status: 'idle', last_update_id: seen.presence_last_update_id });
  // The second user came online after the first poll; the first did not change (a repeat within a minute).
  t.true(String(second.user_id) in since.presences);
  t.false(String(first.user_id) in since.presences);
  t.true(since.presence_last_update_id > seen.presence_last_update_id);
});

test('coming online is announced: modern to clients that simplified presence events, legacy to others', async (t) => {
  const { hamlet } = t.context;
  const modern = await register(hamlet, {
    event_types: ['presence'],
    client_capabilities: { simplified_presence_events: true },
  });
  const legacy = await register(hamlet, { event_types: ['presence'] });
  const { client, user_id, email } = await newPerson(t.context, 'Newcomer');
  await report(client, { status: 'active', ping_only: true });
  const simple = await next(modern, (e) => e.presences !== undefined && String(user_id) in (e.presences as Body));
  t.deepEqual(Object.keys(simple).sort(), ['id', 'presences', 'type']);
  const old = await next(legacy, (e) => e.user_id === user_id);
  t.like(old, { email });
  t.like((old.presence as Record<string, Body>).website, { status: 'active', client: 'website' });
});

test('a user with presence_enabled off is hidden from everyone', async (t) => {
  const { hamlet } = t.context;
  const { client, user_id, email } = await newPerson(t.context, 'Invisible');
  await report(client, { status: 'active', ping_only: true });
  t.true(email in (await realmPresence(hamlet)).presences);
  await succeeds('PATCH', '/settings', client.patch('/settings', { presence_enabled: false }));
  t.false(email in (await realmPresence(hamlet)).presences);
  const slim = await register(hamlet, { fetch_event_types: ['presence'], slim_presence: true });
  t.false(String(user_id) in (slim.snapshot.presences as Body));
  t.like(await refusal(hamlet.get(`/users/${user_id}/presence`)), {
    code: 'BAD_REQUEST',
    msg: `No presence data for ${user_id}`,
  });
  // Reports while invisible are not kept either.
  await report(client, { status: 'active', ping_only: true });
  t.false(email in (await realmPresence(hamlet)).presences);
});

test('refusals: a bad status, an unknown user, a bot', async (t) => {
  const { hamlet } = t.context;
  const bad = (msg: string) => ({ status: 400, result: 'error', code: 'BAD_REQUEST', msg });
  t.deepEqual(await refusal(hamlet.post('/users/me/presence', { status: 'away' })), bad('Invalid status: away'));
  t.deepEqual(await refusal(hamlet.get('/users/nobody@zulip.com/presence')), bad('No such user'));
  t.deepEqual(
    await refusal(hamlet.get('/users/notification-bot@zulip.com/presence')),
    bad('Presence is not supported for bot users.'),
  );
});
