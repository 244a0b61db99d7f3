import { withServer } from './context.js';
import { newPerson } from './people.js';
import { eventsUntil, register, type Body, type Event } from './queues.js';
import { succeeds } from './replies.js';

/**
 * USER_LIMIT_FOR_SENDING_PRESENCE_UPDATE_EVENTS: the development realm has
 * more than 3 active users, so nobody coming online is announced; clients
 * learn presence by polling. (presence.test.ts covers a realm under the limit.)
 */
const test = withServer(['iago', 'hamlet'], { presenceEventUserLimit: 3, heartbeatMs: 400 });

test('above the limit, coming online sends no presence event, and polls and register still show it', async (t) => {
  const { hamlet, iago } = t.context;
  const types = { event_types: ['presence', 'user_status'] };
  const queues = [await register(hamlet, types), await register(iago, types)];
  const { client, user_id, email } = await newPerson(t.context, 'Quiet Arrival');
  const own = await register(client, types);
  await succeeds(
    'POST',
    '/users/me/presence',
    client.post('/users/me/presence', { status: 'active', ping_only: true }),
  );
  // A status change reaches everyone after the (unsent) presence event would have: a marker on the same path.
  const text = `here ${user_id}`;
  await succeeds('POST', '/users/me/status', client.post('/users/me/status', { status_text: text }));
  const marker = (e: Event) => e.type === 'user_status' && e.status_text === text;
  let presenceEvents = 0;
  for (const queue of [...queues, own]) {
    presenceEvents += (await eventsUntil(queue, marker)).filter((e) => e.type === 'presence').length;
  }
  t.is(presenceEvents, 0);

  const realm = await succeeds<{ presences: Record<string, Body> }>(
    'GET',
    '/realm/presence',
    hamlet.get('/realm/presence'),
  );
  t.like((realm.presences[email] as Record<string, Body>).aggregated, { status: 'active' });
  const slim = await register(iago, { fetch_event_types: ['presence'], slim_presence: true });
  t.true(String(user_id) in (slim.snapshot.presences as Body));
  const polled = await succeeds<{ presences: Record<string, Body> }>(
    'POST',
    '/users/me/presence',
    hamlet.post('/users/me/presence', { status: 'idle', slim_presence: true }),
  );
  t.true(String(user_id) in polled.presences);
});
