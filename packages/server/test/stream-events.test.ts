import type { ChatClient } from '@chat/testkit';
import { userId, withServer } from './context.js';
import { eventsUntil, register, type Body, type Event } from './queues.js';

/**
 * Channel events reach everyone who can see the channel, not only its
 * subscribers: every non-guest for a public channel, administrators for a
 * private one.
 */
const test = withServer(['iago', 'hamlet', 'othello', 'polonius', 'desdemona', 'cordelia']);

/** A queue of the channel events, and of the messages that mark how far a test has read. */
const watch = (client: ChatClient) => register(client, { event_types: ['stream', 'subscription', 'message'] });

async function createChannel(admin: ChatClient, name: string, inviteOnly: boolean, principals: number[]) {
  const reply = await admin.post('/users/me/subscriptions', {
    subscriptions: JSON.stringify([{ name }]),
    invite_only: inviteOnly,
    principals: JSON.stringify(principals),
  });
  if (reply.status !== 200) throw new Error(JSON.stringify(reply.body));
  const found = await admin.get<{ stream_id: number }>('/get_stream_id', { stream: name });
  return found.body.stream_id;
}

/** A direct message to `to`, so that its queue has a last event to read up to. */
async function marker(from: ChatClient, to: number): Promise<number> {
  const sent = await from.post<{ id: number }>('/messages', {
    type: 'direct',
    to: JSON.stringify([to]),
    content: 'mark',
  });
  return sent.body.id;
}

const created = (streamId: number) => (e: Event) =>
  e.type === 'stream' && e.op === 'create' && (e.streams as Body[]).some((s) => s.stream_id === streamId);
const isMessage = (id: number) => (e: Event) => e.type === 'message' && (e.message as Body).id === id;
const about = (streamId: number) => (e: Event) =>
  (e.type === 'stream' &&
    ((e.streams as Body[] | undefined)?.some((s) => s.stream_id === streamId) ?? e.stream_id === streamId)) ||
  (e.type === 'subscription' && ((e.stream_ids as number[] | undefined)?.includes(streamId) ?? false));

test('a public channel: members who are not subscribed hear of its creation and its subscribers; guests do not', async (t) => {
  const { iago, hamlet, othello, polonius } = t.context;
  const [hamletQueue, guestQueue] = await Promise.all([watch(hamlet), watch(polonius)]);
  const iagoId = await userId(iago);
  const streamId = await createChannel(iago, 'open air', false, [iagoId]);
  const creation = await eventsUntil(hamletQueue, created(streamId));
  t.like(creation.at(-1), { type: 'stream', op: 'create' });
  t.is((creation.at(-1)!.streams as Body[])[0]!.stream_id, streamId);

  const othelloId = await userId(othello);
  await iago.post('/users/me/subscriptions', {
    subscriptions: JSON.stringify([{ name: 'open air' }]),
    principals: JSON.stringify([othelloId]),
  });
  const peer = await eventsUntil(hamletQueue, (e) => e.op === 'peer_add' && about(streamId)(e));
  t.deepEqual(peer.at(-1)!.stream_ids, [streamId]);
  t.deepEqual(peer.at(-1)!.user_ids, [othelloId]);

  await iago.patch(`/streams/${streamId}`, { description: 'fresh' });
  const update = await eventsUntil(hamletQueue, (e) => e.op === 'update' && about(streamId)(e));
  t.like(update.at(-1), { stream_id: streamId, property: 'description', value: 'fresh' });

  const mark = await marker(iago, await userId(polonius));
  const guestSaw = await eventsUntil(guestQueue, isMessage(mark));
  t.deepEqual(guestSaw.filter(about(streamId)), []);
});

test('a private channel: administrators hear of its creation, other members do not', async (t) => {
  const { iago, desdemona, cordelia } = t.context;
  const [ownerQueue, memberQueue] = await Promise.all([watch(desdemona), watch(cordelia)]);
  const streamId = await createChannel(iago, 'back room', true, [await userId(iago)]);
  const creation = await eventsUntil(ownerQueue, created(streamId));
  t.is((creation.at(-1)!.streams as Body[])[0]!.stream_id, streamId);
  t.true((creation.at(-1)!.streams as Body[])[0]!.invite_only as boolean);

  const mark = await marker(iago, await userId(cordelia));
  const memberSaw = await eventsUntil(memberQueue, isMessage(mark));
  t.deepEqual(memberSaw.filter(about(streamId)), []);
});
