import type { ChatClient } from '@chat/testkit';
import { withServer, type Logins } from './context.js';
import { newPerson, type Person } from './people.js';
import { absentBefore, next, register, type Event } from './queues.js';
import { refusal, succeeds } from './replies.js';

/** POST /typing and the typing events: who hears them, in which shape. */
const test = withServer(['iago'], { heartbeatMs: 400 });

const people = (t: { context: Logins<'iago'> }, ...names: string[]) =>
  Promise.all(names.map((name) => newPerson(t.context, name)));

const typing = (client: ChatClient, params: Record<string, unknown>) =>
  succeeds('POST', '/typing', client.post('/typing', params));
const dm = (from: Person, to: Person[], content: string) =>
  succeeds(
    'POST',
    '/messages',
    from.client.post('/messages', { type: 'direct', to: JSON.stringify(to.map((p) => p.user_id)), content }),
  );
const isTyping = (op: string, sender: number) => (e: Event) =>
  e.type === 'typing' && e.op === op && (e.sender as { user_id: number }).user_id === sender;
const isMessage = (content: string) => (e: Event) =>
  e.type === 'message' && (e.message as { content: string }).content.includes(content);

test("direct typing reaches everyone in the conversation, the typist's own clients included", async (t) => {
  const [alice, bob, carol] = await people(t, 'Alice Typist', 'Bob Reader', 'Carol Reader');
  const [qa, qb, qc] = await Promise.all(
    [alice, bob, carol].map((p) => register(p!.client, { event_types: ['typing', 'message'] })),
  );
  await typing(alice!.client, { op: 'start', to: JSON.stringify([bob!.user_id, carol!.user_id]) });
  for (const queue of [qa!, qb!, qc!]) {
    const event = await next(queue, isTyping('start', alice!.user_id));
    t.like(event, { message_type: 'direct', sender: { user_id: alice!.user_id, email: alice!.email } });
    const recipients = (event.recipients as Array<{ user_id: number }>).map((r) => r.user_id).sort((a, b) => a - b);
    t.deepEqual(
      recipients,
      [alice!.user_id, bob!.user_id, carol!.user_id].sort((a, b) => a - b),
    );
  }
  await typing(alice!.client, { type: 'direct', op: 'stop', to: JSON.stringify([bob!.user_id]) });
  t.like(await next(qb!, isTyping('stop', alice!.user_id)), { message_type: 'direct' });
  // Carol was left out of the stop: a message sent afterwards arrives, the stop never did.
  await dm(alice!, [carol!], 'after typing');
  t.true(await absentBefore(qc!, isMessage('after typing'), isTyping('stop', alice!.user_id)));
});

test('a user who turned receives_typing_notifications off hears no typing', async (t) => {
  const [alice, bob] = await people(t, 'Alice Typist', 'Bob Quiet');
  await succeeds('PATCH', '/settings', bob!.client.patch('/settings', { receives_typing_notifications: false }));
  const queue = await register(bob!.client, { event_types: ['typing', 'message'] });
  await typing(alice!.client, { op: 'start', to: JSON.stringify([bob!.user_id]) });
  await dm(alice!, [bob!], 'typed quietly');
  t.true(await absentBefore(queue, isMessage('typed quietly'), (e) => e.type === 'typing'));
  // Turned back on, the same notification arrives.
  await succeeds('PATCH', '/settings', bob!.client.patch('/settings', { receives_typing_notifications: true }));
  await typing(alice!.client, { op: 'start', to: JSON.stringify([bob!.user_id]) });
  t.truthy(await next(queue, isTyping('start', alice!.user_id)));
});

test('channel typing reaches subscribers whose clients show it', async (t) => {
  const [alice, bob] = await people(t, 'Alice Channel', 'Bob Channel');
  const name = `typing channel ${Date.now()}`;
  const subscribers = JSON.stringify([alice!.user_id, bob!.user_id]);
  const { id } = await succeeds<{ id: number }>(
    'POST',
    '/channels/create',
    alice!.client.post('/channels/create', { name, subscribers }),
  );
  const capable = await register(bob!.client, {
    event_types: ['typing', 'message'],
    client_capabilities: { stream_typing_notifications: true },
  });
  const plain = await register(bob!.client, { event_types: ['typing', 'message'] });
  await typing(alice!.client, { type: 'channel', op: 'start', stream_id: id, topic: 'plans' });
  const event = await next(capable, isTyping('start', alice!.user_id));
  t.like(event, { message_type: 'stream', stream_id: id, topic: 'plans' });
  t.is(event.recipients, undefined);
  await succeeds(
    'POST',
    '/messages',
    alice!.client.post('/messages', { type: 'stream', to: name, topic: 'plans', content: 'typed in channel' }),
  );
  t.true(await absentBefore(plain, isMessage('typed in channel'), (e) => e.type === 'typing'));
});

test('refusals, each with its message', async (t) => {
  const [alice] = await people(t, 'Alice Refused');
  const { client } = alice!;
  const bad = (msg: string) => ({ status: 400, result: 'error', code: 'BAD_REQUEST', msg });
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ op: 'start' }, "Missing 'to' argument"],
    [{ op: 'start', to: '[]' }, "Empty 'to' list"],
    [{ op: 'start', to: '[999999]' }, 'Invalid user ID 999999'],
    [{ op: 'typing', to: `[${alice!.user_id}]` }, 'Invalid op'],
    [{ type: 'stream', op: 'start', topic: 'x' }, 'Missing channel ID'],
    [{ type: 'channel', op: 'start', stream_id: 3 }, 'Missing topic'],
  ];
  for (const [params, msg] of cases)
    t.deepEqual(await refusal(client.post('/typing', params)), bad(msg), JSON.stringify(params));
  t.like(await refusal(client.post('/typing', { type: 'stream', op: 'start', stream_id: 999999, topic: 'x' })), {
    status: 400,
    code: 'BAD_REQUEST',
  });
  await succeeds('PATCH', '/settings', client.patch('/settings', { send_private_typing_notifications: false }));
  t.deepEqual(
    await refusal(client.post('/typing', { op: 'start', to: `[${alice!.user_id}]` })),
    bad('User has disabled typing notifications for direct messages'),
  );
});
