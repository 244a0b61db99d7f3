import { assertResponse } from '@chat/testkit';
import { withServer, type Logins } from './context.js';
import { newPerson, type Person } from './people.js';
import { next, register, type Event } from './queues.js';
import { bodyOf, refused, succeeds } from './replies.js';

/** Scheduled messages and reminders: kept, listed, edited, deleted, and sent by the author's actor when due. */
const test = withServer(['iago']);

type T = { context: Logins<'iago'> };

const people = (t: T, ...names: string[]) => Promise.all(names.map((name) => newPerson(t.context, name)));
const inSeconds = (s: number) => Math.floor(Date.now() / 1000) + s;

async function channel(owner: Person, members: Person[]) {
  const name = `scheduled ${Date.now()} ${Math.random()}`;
  const subscribers = JSON.stringify([owner, ...members].map((p) => p.user_id));
  const { id } = await bodyOf<{ id: number }>(owner.client.post('/channels/create', { name, subscribers }));
  return { id, name };
}

const schedule = (who: Person, params: Record<string, unknown>) =>
  succeeds<{ scheduled_message_id: number }>(
    'POST',
    '/scheduled_messages',
    who.client.post('/scheduled_messages', params),
  );

const isMessage = (content: string) => (e: Event) =>
  e.type === 'message' && (e.message as { content: string }).content.includes(content);

test('a scheduled channel message is listed, announced, and sent when due', async (t) => {
  const [alice, bob] = (await people(t, 'Alice S', 'Bob S')) as [Person, Person];
  const place = await channel(alice, [bob]);
  const own = await register(alice.client, { event_types: ['scheduled_messages', 'user_topic'] });
  const theirs = await register(bob.client, { event_types: ['message'] });
  const at = inSeconds(3);
  const { scheduled_message_id: id } = await schedule(alice, {
    type: 'stream',
    to: place.id,
    topic: 'later',
    content: 'Sent **later**',
    scheduled_delivery_timestamp: at,
  });
  const add = await next(own, (e) => e.type === 'scheduled_messages' && e.op === 'add');
  const listed = { scheduled_message_id: id, type: 'stream', to: place.id, topic: 'later', content: 'Sent **later**' };
  t.like((add.scheduled_messages as unknown[])[0], { ...listed, failed: false, scheduled_delivery_timestamp: at });
  const list = await succeeds<{ scheduled_messages: Array<{ rendered_content: string }> }>(
    'GET',
    '/scheduled_messages',
    alice.client.get('/scheduled_messages'),
  );
  t.like(list.scheduled_messages[0], listed);
  t.regex(list.scheduled_messages[0]!.rendered_content, /<strong>later<\/strong>/);
  const { snapshot } = await register(alice.client, { fetch_event_types: ['scheduled_messages'] });
  t.deepEqual(snapshot.scheduled_messages, list.scheduled_messages);
  // When due, Bob receives it from Alice, and Alice's clients learn it left the list.
  const sent = await next(theirs, isMessage('Sent **later**'));
  t.is((sent.message as { sender_id: number }).sender_id, alice.user_id);
  t.true(Date.now() / 1000 >= at - 1);
  const gone = await next(own, (e) => e.type === 'scheduled_messages' && e.op === 'remove');
  t.is(gone.scheduled_message_id, id);
  // As any message she sends: starting the topic follows it (her default policy).
  const followed = await next(own, (e) => e.type === 'user_topic');
  t.like(followed, { stream_id: place.id, topic_name: 'later', visibility_policy: 3 });
  t.deepEqual(
    (await bodyOf<{ scheduled_messages: unknown[] }>(alice.client.get('/scheduled_messages'))).scheduled_messages,
    [],
  );
});

test('a scheduled message can be edited and deleted before it goes', async (t) => {
  const [alice, bob] = (await people(t, 'Alice E', 'Bob E')) as [Person, Person];
  const own = await register(alice.client, { event_types: ['scheduled_messages'] });
  const { scheduled_message_id: id } = await schedule(alice, {
    type: 'direct',
    to: JSON.stringify([bob.user_id]),
    content: 'first draft',
    scheduled_delivery_timestamp: inSeconds(3600),
  });
  await succeeds(
    'PATCH',
    `/scheduled_messages/${id}`,
    alice.client.patch(`/scheduled_messages/${id}`, { content: 'second draft' }),
  );
  const update = await next(own, (e) => e.type === 'scheduled_messages' && e.op === 'update');
  t.like(update.scheduled_message, {
    scheduled_message_id: id,
    type: 'private',
    to: [bob.user_id],
    content: 'second draft',
  });
  await refused(
    t,
    alice.client.patch(`/scheduled_messages/${id}`, { type: 'stream' }),
    'Recipient required when updating type of scheduled message.',
  );
  await succeeds('DELETE', `/scheduled_messages/${id}`, alice.client.delete(`/scheduled_messages/${id}`));
  t.is((await next(own, (e) => e.type === 'scheduled_messages' && e.op === 'remove')).scheduled_message_id, id);
  const missing = await alice.client.delete(`/scheduled_messages/${id}`);
  t.is(missing.status, 404);
  assertResponse('DELETE', `/scheduled_messages/${id}`, 404, missing.body);
  t.like(missing.body, { code: 'BAD_REQUEST', msg: 'Scheduled message does not exist' });
  // Someone else's id is just as missing.
  t.is((await bob.client.patch(`/scheduled_messages/${id}`, { content: 'x' })).status, 404);
});

test('scheduling checks the message now', async (t) => {
  const [alice] = (await people(t, 'Alice C')) as [Person];
  const base = { type: 'direct', to: JSON.stringify([alice.user_id]), content: 'hi' };
  await refused(
    t,
    alice.client.post('/scheduled_messages', { ...base, scheduled_delivery_timestamp: inSeconds(-10) }),
    'Scheduled delivery time must be in the future.',
  );
  await refused(
    t,
    alice.client.post('/scheduled_messages', { ...base, to: '[999999]', scheduled_delivery_timestamp: inSeconds(60) }),
    'Invalid user ID 999999',
  );
});

test('a scheduled message goes to a channel id or a list of user ids, not to names or addresses', async (t) => {
  const [alice, bob] = (await people(t, 'Alice T', 'Bob T')) as [Person, Person];
  const place = await channel(alice, [bob]);
  const at = inSeconds(600);
  const stream = (to: unknown) => ({ type: 'stream', to, topic: 'x', content: 'hi', scheduled_delivery_timestamp: at });
  const direct = (to: unknown) => ({ type: 'direct', to, content: 'hi', scheduled_delivery_timestamp: at });
  const post = (params: Record<string, unknown>) => alice.client.post('/scheduled_messages', params);
  for (const to of [place.name, JSON.stringify([place.id])]) {
    await refused(t, post(stream(to)), 'Invalid data type for channel ID');
  }
  for (const to of [bob.email, String(bob.user_id)])
    await refused(t, post(direct(to)), 'Invalid data type for recipients');
  await refused(t, post(direct(JSON.stringify([bob.email]))), 'Recipient list may only contain user IDs');
  // An edit's new recipients are held to the same forms.
  const { scheduled_message_id: id } = await schedule(alice, stream(place.id));
  await refused(
    t,
    alice.client.patch(`/scheduled_messages/${id}`, { to: place.name }),
    'Invalid data type for channel ID',
  );
  await succeeds(
    'PATCH',
    `/scheduled_messages/${id}`,
    alice.client.patch(`/scheduled_messages/${id}`, { to: place.id }),
  );
});

test('a reminder comes from the notification bot when due, quoting the message', async (t) => {
  const [alice, bob] = (await people(t, 'Alice R', 'Bob R')) as [Person, Person];
  const place = await channel(alice, [bob]);
  const { id: target } = await bodyOf<{ id: number }>(
    bob.client.post('/messages', { type: 'stream', to: place.name, topic: 'plans', content: 'lunch on friday' }),
  );
  const queue = await register(alice.client, { event_types: ['reminders', 'message'] });
  const { reminder_id: id } = await succeeds<{ reminder_id: number }>(
    'POST',
    '/reminders',
    alice.client.post('/reminders', {
      message_id: target,
      scheduled_delivery_timestamp: inSeconds(3),
      note: 'book a table',
    }),
  );
  const add = await next(queue, (e) => e.type === 'reminders' && e.op === 'add');
  t.like((add.reminders as unknown[])[0], {
    reminder_id: id,
    type: 'private',
    to: [alice.user_id],
    reminder_target_message_id: target,
  });
  const listed = await succeeds<{ reminders: unknown[] }>('GET', '/reminders', alice.client.get('/reminders'));
  t.is(listed.reminders.length, 1);
  const reminder = await next(queue, isMessage('You requested a reminder'));
  const message = reminder.message as { content: string; sender_email: string; type: string };
  t.is(message.type, 'private');
  t.regex(message.sender_email, /notification-bot/);
  t.regex(message.content, /lunch on friday/);
  t.regex(message.content, /book a table/);
  t.is((await next(queue, (e) => e.type === 'reminders' && e.op === 'remove')).reminder_id, id);
  const gone = await alice.client.delete(`/reminders/${id}`);
  t.is(gone.status, 404);
  t.like(gone.body, { msg: 'Reminder does not exist' });
  await refused(
    t,
    alice.client.post('/reminders', { message_id: 999999999, scheduled_delivery_timestamp: inSeconds(60) }),
    'Invalid message(s)',
  );
});
