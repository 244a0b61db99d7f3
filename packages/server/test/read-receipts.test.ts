import { withServer, type Logins } from './context.js';
import { newPerson, type Person } from './people.js';
import { next, register, type Event } from './queues.js';
import { bodyOf, refused, succeeds } from './replies.js';

/**
 * Read receipts, reports to the moderators, and typing notifications for
 * edits: who learns what about a message. The tests that change the
 * organization's settings run first, one at a time.
 */
const test = withServer(['iago']);

type T = { context: Logins<'iago'> };

const people = (t: T, ...names: string[]) => Promise.all(names.map((name) => newPerson(t.context, name)));

async function channel(owner: Person, members: Person[]): Promise<{ id: number; name: string }> {
  const name = `receipts ${Date.now()} ${Math.random()}`;
  const subscribers = JSON.stringify([owner, ...members].map((p) => p.user_id));
  const { id } = await bodyOf<{ id: number }>(owner.client.post('/channels/create', { name, subscribers }));
  return { id, name };
}

const post = async (from: Person, to: string, content = 'read me') =>
  (await bodyOf<{ id: number }>(from.client.post('/messages', { type: 'stream', to, topic: 'receipts', content }))).id;

const read = (who: Person, id: number) =>
  bodyOf(who.client.post('/messages/flags', { messages: JSON.stringify([id]), op: 'add', flag: 'read' }));

async function receipts(who: Person, id: number): Promise<number[]> {
  const body = await succeeds<{ user_ids: number[] }>(
    'GET',
    `/messages/${id}/read_receipts`,
    who.client.get(`/messages/${id}/read_receipts`),
  );
  return body.user_ids;
}

test('read receipts list who read, never the sender, honouring send_read_receipts and muting', async (t) => {
  const [alice, bob, carol, dave] = (await people(t, 'Alice R', 'Bob R', 'Carol R', 'Dave R')) as Person[] as [
    Person,
    Person,
    Person,
    Person,
  ];
  const place = await channel(alice, [bob, carol, dave]);
  const id = await post(alice, place.name);
  t.deepEqual(await receipts(alice, id), []);
  await Promise.all([read(bob, id), read(carol, id), read(dave, id)]);
  const all = [bob.user_id, carol.user_id, dave.user_id].sort((a, b) => a - b);
  t.deepEqual(await receipts(alice, id), all);
  // Marked unread again, Bob no longer shows as having read it.
  await bodyOf(bob.client.post('/messages/flags', { messages: JSON.stringify([id]), op: 'remove', flag: 'read' }));
  t.deepEqual(
    await receipts(carol, id),
    [carol.user_id, dave.user_id].sort((a, b) => a - b),
  );
  await read(bob, id);
  // Carol turns her receipts off: nobody sees hers.
  await bodyOf(carol.client.patch('/settings', { send_read_receipts: false }));
  t.false((await receipts(alice, id)).includes(carol.user_id));
  // Dave muted Alice: she does not see him read; Alice muted Bob: she does not see him either.
  await bodyOf(dave.client.post(`/users/me/muted_users/${alice.user_id}`));
  await bodyOf(alice.client.post(`/users/me/muted_users/${bob.user_id}`));
  t.deepEqual(await receipts(alice, id), []);
  t.deepEqual(
    await receipts(bob, id),
    [bob.user_id, dave.user_id].sort((a, b) => a - b),
  );
});

test('read receipts count only who received the message: not who subscribed after it was sent', async (t) => {
  const [alice, bob, erin] = (await people(t, 'Alice L', 'Bob L', 'Erin L')) as [Person, Person, Person];
  const place = await channel(alice, [bob]);
  const old = await post(alice, place.name, 'before Erin');
  await read(bob, old);
  await bodyOf(erin.client.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: place.name }]) }));
  // Erin subscribed later: the old message is not unread for her, yet she never received it.
  t.deepEqual(await receipts(alice, old), [bob.user_id]);
  const fresh = await post(alice, place.name, 'after Erin');
  await Promise.all([read(bob, fresh), read(erin, fresh)]);
  t.deepEqual(
    await receipts(alice, fresh),
    [bob.user_id, erin.user_id].sort((a, b) => a - b),
  );
  // Starring the old one gives it to her (the original's historical row, read), so she counts from then on.
  await bodyOf(erin.client.post('/messages/flags', { messages: JSON.stringify([old]), op: 'add', flag: 'starred' }));
  t.deepEqual(
    await receipts(alice, old),
    [bob.user_id, erin.user_id].sort((a, b) => a - b),
  );
});

test('read receipts of a message the caller cannot see are refused as an invalid message', async (t) => {
  const [alice, bob, carol] = (await people(t, 'Alice S', 'Bob S', 'Carol S')) as [Person, Person, Person];
  const { id } = await bodyOf<{ id: number }>(
    alice.client.post('/messages', { type: 'direct', to: JSON.stringify([bob.user_id]), content: 'secret' }),
  );
  await read(bob, id);
  t.deepEqual(await receipts(alice, id), [bob.user_id]);
  await refused(t, carol.client.get(`/messages/${id}/read_receipts`), 'Invalid message(s)');
});

test('editing typing reaches those who would see the edit, in the reference shape', async (t) => {
  const [alice, bob] = (await people(t, 'Alice E', 'Bob E')) as [Person, Person];
  const place = await channel(alice, [bob]);
  const id = await post(alice, place.name, 'to be edited');
  const queue = await register(bob.client, { event_types: ['typing_edit_message'] });
  await succeeds('POST', `/messages/${id}/typing`, alice.client.post(`/messages/${id}/typing`, { op: 'start' }));
  const started = await next(queue, (e) => e.type === 'typing_edit_message' && e.message_id === id);
  t.like(started, {
    op: 'start',
    sender_id: alice.user_id,
    recipient: { type: 'channel', channel_id: place.id, topic: 'receipts' },
  });
  const { id: dm } = await bodyOf<{ id: number }>(
    alice.client.post('/messages', { type: 'direct', to: JSON.stringify([bob.user_id]), content: 'dm' }),
  );
  await succeeds('POST', `/messages/${dm}/typing`, alice.client.post(`/messages/${dm}/typing`, { op: 'stop' }));
  const stopped = await next(queue, (e) => e.type === 'typing_edit_message' && e.message_id === dm);
  t.like(stopped, { op: 'stop', recipient: { type: 'direct' } });
  t.deepEqual(
    (stopped.recipient as { user_ids: number[] }).user_ids,
    [alice.user_id, bob.user_id].sort((a, b) => a - b),
  );
  await bodyOf(alice.client.patch('/settings', { send_stream_typing_notifications: false }));
  await refused(
    t,
    alice.client.post(`/messages/${id}/typing`, { op: 'start' }),
    'User has disabled typing notifications for channel messages',
  );
  await refused(t, alice.client.post('/messages/999999/typing', { op: 'start' }), 'Invalid message(s)');
});

test.serial('read receipts disabled in the organization are refused', async (t) => {
  const [alice, bob] = (await people(t, 'Alice D', 'Bob D')) as [Person, Person];
  const place = await channel(alice, [bob]);
  const id = await post(alice, place.name);
  await read(bob, id);
  await bodyOf(t.context.iago.patch('/realm', { enable_read_receipts: false }));
  try {
    await refused(
      t,
      alice.client.get(`/messages/${id}/read_receipts`),
      'Read receipts are disabled in this organization.',
    );
    // A message the caller cannot see is still an invalid message first.
    await refused(t, alice.client.get('/messages/999999999/read_receipts'), 'Invalid message(s)');
  } finally {
    await bodyOf(t.context.iago.patch('/realm', { enable_read_receipts: true }));
  }
  t.deepEqual(await receipts(alice, id), [bob.user_id]);
});

test.serial('a report goes to the moderation request channel from the notification bot', async (t) => {
  const [alice, bob] = (await people(t, 'Alice Reporter', 'Bob Offender')) as [Person, Person];
  const place = await channel(alice, [bob]);
  const id = await post(bob, place.name, 'something rude');
  const report = (params: Record<string, unknown>) => alice.client.post(`/messages/${id}/report`, params);
  await refused(
    t,
    report({ report_type: 'harassment' }),
    'Moderation request channel must be specified to enable message reporting.',
  );
  await refused(t, report({ report_type: 'other' }), 'An explanation is required.');
  const moderation = await channel(alice, []);
  await bodyOf(t.context.iago.patch('/realm', { moderation_request_channel_id: moderation.id }));
  try {
    const queue = await register(alice.client, { event_types: ['message'] });
    await succeeds('POST', `/messages/${id}/report`, report({ report_type: 'harassment', description: 'Not nice.' }));
    const isReport = (e: Event) =>
      e.type === 'message' && (e.message as { stream_id?: number }).stream_id === moderation.id;
    const { message } = await next(queue, isReport);
    const m = message as { subject: string; content: string; sender_email: string };
    t.is(m.subject, "Bob Offender's moderation requests");
    t.regex(m.content, /reported/);
    t.regex(m.content, /Harassment|harassment/);
    t.regex(m.content, /Not nice\./);
    t.regex(m.content, /something rude/);
    t.regex(m.sender_email, /notification-bot/);
    await refused(t, alice.client.post('/messages/999999999/report', { report_type: 'spam' }), 'Invalid message(s)');
  } finally {
    await bodyOf(t.context.iago.patch('/realm', { moderation_request_channel_id: -1 }));
  }
});
