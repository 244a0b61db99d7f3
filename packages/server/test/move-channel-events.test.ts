import type { ChatClient } from '@chat/testkit';
import { IDS, withServer } from './context.js';
import { channel, channelOf, messagesIn, send, topicOf } from './move-support.js';
import { next, register, type Event } from './queues.js';
import { ok } from './replies.js';

/**
 * The events of a move between channels, received through real queues
 * (POST /register, GET /events) and checked against the reference's
 * schemas: update_message for those who keep the messages, delete_message
 * for those who lose them, and the source's new first_message_id.
 */
const test = withServer(['iago', 'hamlet', 'othello', 'cordelia', 'polonius'], { heartbeatMs: 400 });

/** A queue for the events of a move, taking deletions in bulk as current clients do. */
const watch = (client: ChatClient) =>
  register(client, {
    event_types: ['update_message', 'delete_message', 'stream'],
    client_capabilities: { bulk_message_deletion: true },
  });

/** Deletes the notification bot's notice of a channel's creation, so that the test's messages are its only ones. */
async function withoutNotice(admin: ChatClient, channelId: number): Promise<number> {
  for (const m of await messagesIn(admin, channelOf(channelId))) await ok(admin, 'DELETE', `/messages/${m.id}`);
  return channelId;
}

const about = (ids: number[], type: string) => (e: Event) =>
  e.type === type && JSON.stringify(e.message_ids) === JSON.stringify(ids);

test('a move to a private channel: update_message to its readers, delete_message to the others', async (t) => {
  const { iago, hamlet, othello, cordelia, polonius } = t.context;
  const a = await withoutNotice(
    iago,
    await channel(iago, 'ev mv a', [IDS.iago, IDS.hamlet, IDS.othello, IDS.polonius]),
  );
  const b = await withoutNotice(
    iago,
    await channel(iago, 'ev mv b', [IDS.iago, IDS.hamlet, IDS.cordelia], { invite_only: true }),
  );
  const queues = {
    hamlet: await watch(hamlet),
    othello: await watch(othello),
    cordelia: await watch(cordelia),
    polonius: await watch(polonius),
  };
  const first = await send(othello, a, 'moving', 'one');
  const second = await send(hamlet, a, 'moving', 'two');
  await ok(hamlet, 'POST', '/messages/flags', { messages: JSON.stringify([first]), op: 'add', flag: 'read' });
  await ok(iago, 'PATCH', `/messages/${second}`, {
    stream_id: b,
    topic: 'moved',
    propagate_mode: 'change_all',
    send_notification_to_new_thread: false,
  });
  const ids = [first, second];
  const update = {
    type: 'update_message',
    user_id: IDS.iago,
    message_id: second,
    message_ids: ids,
    stream_id: a,
    stream_name: 'ev mv a',
    new_stream_id: b,
    orig_subject: 'moving',
    subject: 'moved',
    propagate_mode: 'change_all',
    rendering_only: false,
  };
  const forHamlet = await next(queues.hamlet, about(ids, 'update_message'));
  t.like(forHamlet, update);
  // The flags are those of `message_id`: hamlet's own message, read.
  t.deepEqual(forHamlet.flags, ['read']);
  t.like(await next(queues.cordelia, about(ids, 'update_message')), update);
  const gone = { type: 'delete_message', message_ids: ids, message_type: 'stream', stream_id: a, topic: 'moving' };
  t.like(await next(queues.othello, about(ids, 'delete_message')), gone);
  t.like(await next(queues.polonius, about(ids, 'delete_message')), gone);
  // Those were a's only messages: its first_message_id is now none ...
  const oldest = (id: number) => (e: Event) =>
    e.type === 'stream' && e.property === 'first_message_id' && e.stream_id === id;
  t.like(await next(queues.hamlet, oldest(a)), { op: 'update', value: null });
  // ... and b's oldest message is now the first moved one.
  t.like(await next(queues.cordelia, oldest(b)), { op: 'update', value: first });
  t.false(queues.othello.seen.some((e) => e.type === 'update_message' && e.message_id === second));

  // hamlet had read othello's message in a: it is still read in b; cordelia never had it there.
  const there = await messagesIn(hamlet, topicOf(b, 'moved'));
  t.deepEqual(
    there.map((m) => [m.id, m.flags.includes('read')]),
    [
      [first, true],
      [second, true],
    ],
  );
  t.deepEqual(await messagesIn(hamlet, channelOf(a)), []);
});

test('a move to a public channel: guests who cannot follow lose the messages, members keep them', async (t) => {
  const { iago, hamlet, othello, polonius } = t.context;
  const a = await channel(iago, 'ev pub a', [IDS.iago, IDS.hamlet, IDS.othello, IDS.polonius]);
  const b = await channel(iago, 'ev pub b', [IDS.iago, IDS.hamlet]);
  const [qo, qp] = [await watch(othello), await watch(polonius)];
  const id = await send(hamlet, a, 'pub', 'x');
  await ok(iago, 'PATCH', `/messages/${id}`, { stream_id: b, send_notification_to_new_thread: false });
  const update = await next(qo, about([id], 'update_message'));
  t.like(update, { stream_id: a, new_stream_id: b, orig_subject: 'pub', propagate_mode: 'change_one' });
  // Same topic name: no subject, no topic_links.
  t.false('subject' in update);
  t.false('topic_links' in update);
  t.like(await next(qp, about([id], 'delete_message')), { stream_id: a, topic: 'pub' });
  // othello is not subscribed to b, which is public: he still reads the message there.
  t.deepEqual(
    (await messagesIn(othello, topicOf(b, 'pub'))).map((m) => m.id),
    [id],
  );
});
