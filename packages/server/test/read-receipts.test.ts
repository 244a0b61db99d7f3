import { withServer, type Logins } from './context.js';
import { newPerson, type Person } from './people.js';
import { next, register } from './queues.js';
import { bodyOf, refused, succeeds } from './replies.js';

/** Read receipts, and typing notifications for edits: who learns what about a message. */
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
