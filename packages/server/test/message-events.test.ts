import { userAddress, type SubscriptionProperty } from '@chat/protocol';
import type { ChatClient } from '@chat/testkit';
import { IDS, withServer } from './context.js';
import { held, next, none, register, type Body, type Event } from './queues.js';
import { bodyOf } from './replies.js';

/**
 * The events of messaging state changes: who gets each one, with which
 * fields, every one checked against the reference. Tests run concurrently,
 * so each finds its events by their ids and uses channels of its own.
 */
const test = withServer(['iago', 'hamlet', 'othello', 'cordelia'], { heartbeatMs: 400 });

/** A queue of these event types, with these client capabilities. */
const watch = (client: ChatClient, types: string[], capabilities: Body = {}) =>
  register(client, { event_types: types, client_capabilities: capabilities });

const send = async (client: ChatClient, params: Body) =>
  (await bodyOf<{ id: number }>(client.post('/messages', params))).id;
const toChannel = (client: ChatClient, to: string, topic: string, content = 'hello') =>
  send(client, { type: 'stream', to, topic, content });

async function createChannel(creator: ChatClient, name: string, subscribers: number[], inviteOnly = true) {
  const params = {
    name,
    subscribers: JSON.stringify(subscribers),
    invite_only: inviteOnly,
    // Protected history: the subscribers from the start still see everything.
    history_public_to_subscribers: false,
  };
  return (await bodyOf<{ id: number }>(creator.post('/channels/create', params))).id;
}

const of = (type: string, more: (e: Event) => boolean) => (e: Event) => e.type === type && more(e);

test('reaction add and remove reach the conversation, not outsiders', async (t) => {
  const { iago, hamlet, othello } = t.context;
  await createChannel(iago, 'ev reactions', [IDS.iago, IDS.hamlet]);
  const [qh, qo] = [await watch(hamlet, ['reaction']), await watch(othello, ['reaction'])];
  const id = await toChannel(iago, 'ev reactions', 'r');
  await bodyOf(hamlet.post(`/messages/${id}/reactions`, { emoji_name: 'tada' }));
  const added = await next(
    qh,
    of('reaction', (e) => e.message_id === id && e.op === 'add'),
  );
  t.like(added, { user_id: IDS.hamlet, emoji_name: 'tada', emoji_code: '1f389', reaction_type: 'unicode_emoji' });
  t.like(added.user as Body, { user_id: IDS.hamlet, email: 'hamlet@zulip.com', full_name: 'King Hamlet' });
  await bodyOf(hamlet.delete(`/messages/${id}/reactions`, { emoji_name: 'tada' }));
  const removed = await next(
    qh,
    of('reaction', (e) => e.message_id === id && e.op === 'remove'),
  );
  t.is(removed.emoji_name, 'tada');
  t.true(await none(qo, (e) => e.message_id === id));
  // As the original: a removal may give the code alone (type unicode_emoji unless said); the event names
  // the reaction as it was added. Neither name nor code is refused; a reaction not there does not exist.
  await bodyOf(hamlet.post(`/messages/${id}/reactions`, { emoji_name: 'tada' }));
  await bodyOf(hamlet.delete(`/messages/${id}/reactions`, { emoji_code: '1f389' }));
  const byCode = await next(
    qh,
    of('reaction', (e) => e.message_id === id && e.op === 'remove' && e.id !== removed.id),
  );
  t.like(byCode, { emoji_name: 'tada', emoji_code: '1f389', reaction_type: 'unicode_emoji', user_id: IDS.hamlet });
  const neither = await hamlet.delete(`/messages/${id}/reactions`, {});
  t.like(neither.body, {
    code: 'BAD_REQUEST',
    msg: 'At least one of the following arguments must be present: emoji_name, emoji_code',
  });
  const gone = await hamlet.delete(`/messages/${id}/reactions`, { emoji_name: 'tada' });
  t.like(gone.body, { code: 'REACTION_DOES_NOT_EXIST', msg: "Reaction doesn't exist." });
});

test('delete_message: bulk clients get message_ids, others one event per message; outsiders nothing', async (t) => {
  const { iago, hamlet, othello } = t.context;
  const streamId = await createChannel(iago, 'ev deletions', [IDS.iago, IDS.hamlet]);
  const bulk = await watch(hamlet, ['delete_message'], { bulk_message_deletion: true });
  const single = await watch(hamlet, ['delete_message']);
  const outsider = await watch(othello, ['delete_message']);
  const one = await toChannel(hamlet, 'ev deletions', 'gone');
  await bodyOf(iago.delete(`/messages/${one}`));
  const event = await next(
    bulk,
    of('delete_message', (e) => (e.message_ids as number[]).includes(one)),
  );
  t.like(event, { message_ids: [one], message_type: 'stream', stream_id: streamId, topic: 'gone' });
  t.false('message_id' in event);

  const a = await toChannel(iago, 'ev deletions', 'doomed');
  const b = await toChannel(hamlet, 'ev deletions', 'doomed');
  await bodyOf(iago.post(`/streams/${streamId}/delete_topic`, { topic_name: 'doomed' }));
  const topic = await next(
    bulk,
    of('delete_message', (e) => (e.message_ids as number[]).includes(a)),
  );
  t.like(topic, { message_ids: [a, b], topic: 'doomed', stream_id: streamId });
  const split = await next(
    single,
    of('delete_message', (e) => e.message_id === b),
  );
  t.like(split, { message_type: 'stream', stream_id: streamId, topic: 'doomed' });
  t.false('message_ids' in split);
  t.true((await held(single)).some((e) => e.message_id === a));
  t.true(await none(outsider, (e) => e.type === 'delete_message' && [one, a, b].includes(e.message_id as number)));
});

test('delete_message of a direct message reaches its participants', async (t) => {
  const { hamlet, othello, cordelia } = t.context;
  const [qo, qc] = [await watch(othello, ['delete_message']), await watch(cordelia, ['delete_message'])];
  const id = await send(hamlet, { type: 'direct', to: JSON.stringify([IDS.othello]), content: 'oops' });
  await bodyOf(hamlet.delete(`/messages/${id}`));
  const event = await next(
    qo,
    of('delete_message', (e) => e.message_id === id),
  );
  t.is(event.message_type, 'private');
  t.false('stream_id' in event);
  t.true(await none(qc, (e) => e.message_id === id));
});

test('update_message for a content edit: content fields and the recipient flags, no topic fields', async (t) => {
  const { iago, hamlet, othello } = t.context;
  const streamId = await createChannel(iago, 'ev edits', [IDS.iago, IDS.hamlet]);
  const [qi, qo] = [await watch(iago, ['update_message']), await watch(othello, ['update_message'])];
  const id = await toChannel(hamlet, 'ev edits', 'e', 'first');
  await bodyOf(hamlet.patch(`/messages/${id}`, { content: 'now for @**Iago**' }));
  const event = await next(
    qi,
    of('update_message', (e) => e.message_id === id),
  );
  t.like(event, {
    user_id: IDS.hamlet,
    message_ids: [id],
    stream_id: streamId,
    orig_content: 'first',
    orig_rendered_content: '<p>first</p>',
    content: 'now for @**Iago**',
    rendering_only: false,
    is_me_message: false,
  });
  t.true((event.rendered_content as string).includes('user-mention'));
  t.deepEqual(event.flags, ['mentioned']);
  for (const field of ['orig_subject', 'subject', 'propagate_mode', 'topic_links', 'personal']) t.false(field in event);
  t.true(await none(qo, (e) => e.message_id === id));
});

test('update_message for topic moves and resolving: topic fields, no content fields', async (t) => {
  const { iago, hamlet, othello } = t.context;
  // Public: the notification bot's move notices cannot reach a private channel it is not in.
  const streamId = await createChannel(iago, 'ev moves', [IDS.iago, IDS.hamlet], false);
  const [qh, qo] = [await watch(hamlet, ['update_message']), await watch(othello, ['update_message'])];
  const a = await toChannel(hamlet, 'ev moves', 'old place');
  const b = await toChannel(iago, 'ev moves', 'old place');
  await bodyOf(iago.patch(`/messages/${b}`, { topic: 'new place', propagate_mode: 'change_all' }));
  const moved = await next(
    qh,
    of('update_message', (e) => e.message_id === b),
  );
  t.like(moved, {
    user_id: IDS.iago,
    message_ids: [a, b],
    stream_id: streamId,
    orig_subject: 'old place',
    subject: 'new place',
    propagate_mode: 'change_all',
    topic_links: [],
  });
  t.deepEqual(moved.flags, []);
  t.false('content' in moved);
  t.false('orig_content' in moved);

  await bodyOf(hamlet.patch(`/messages/${a}`, { topic: '✔ new place', propagate_mode: 'change_all' }));
  const resolved = await next(
    qh,
    of('update_message', (e) => e.message_id === a),
  );
  t.like(resolved, { user_id: IDS.hamlet, message_ids: [a, b], orig_subject: 'new place', subject: '✔ new place' });
  t.deepEqual(resolved.flags, ['read']);
  t.true(await none(qo, (e) => [a, b].includes(e.message_id as number)));
});

test('update_message_flags go to the user’s own queues; message_details when marking unread', async (t) => {
  const { hamlet, othello } = t.context;
  const [qh, qo] = [await watch(hamlet, ['update_message_flags']), await watch(othello, ['update_message_flags'])];
  const id = await send(othello, { type: 'direct', to: JSON.stringify([IDS.hamlet]), content: 'flag me' });
  const mine = await send(hamlet, { type: 'direct', to: JSON.stringify([IDS.othello]), content: 'no event' });
  const flag = (op: string, flag: string) =>
    bodyOf(hamlet.post('/messages/flags', { messages: JSON.stringify([id]), op, flag }));
  const flagged = (op: string, flag: string) =>
    of('update_message_flags', (e) => e.op === op && e.flag === flag && (e.messages as number[]).includes(id));

  await flag('add', 'read');
  t.like(await next(qh, flagged('add', 'read')), { messages: [id], all: false });
  await flag('remove', 'read');
  const unread = await next(qh, flagged('remove', 'read'));
  t.deepEqual(unread.message_details, { [id]: { type: 'private', user_ids: [IDS.othello] } });
  await flag('add', 'starred');
  const starred = await next(qh, flagged('add', 'starred'));
  t.false('message_details' in starred);
  // Sending reads one's own message without an event; nothing reaches other users.
  t.true(await none(qh, (e) => (e.messages as number[]).includes(mine)));
  t.true(await none(qo, (e) => e.type === 'update_message_flags' && (e.messages as number[]).includes(id)));
});

test('user_topic on a visibility change and on the automatic follow of a new topic', async (t) => {
  const { hamlet, othello } = t.context;
  const [qh, qo] = [await watch(hamlet, ['user_topic']), await watch(othello, ['user_topic'])];
  const denmark = (await bodyOf<{ stream_id: number }>(hamlet.get('/get_stream_id', { stream: 'Denmark' }))).stream_id;
  await bodyOf(hamlet.post('/user_topics', { stream_id: denmark, topic: 'ev muted', visibility_policy: 1 }));
  const muted = await next(
    qh,
    of('user_topic', (e) => e.topic_name === 'ev muted'),
  );
  t.like(muted, { stream_id: denmark, visibility_policy: 1 });
  t.is(typeof muted.last_updated, 'number');
  await toChannel(hamlet, 'Denmark', 'ev started');
  const followed = await next(
    qh,
    of('user_topic', (e) => e.topic_name === 'ev started'),
  );
  t.like(followed, { stream_id: denmark, visibility_policy: 3 });
  t.true(await none(qo, (e) => e.type === 'user_topic' && String(e.topic_name).startsWith('ev ')));
});

test('subscription update for personal settings; is_muted also as in_home_view', async (t) => {
  const { server, iago, hamlet, othello } = t.context;
  const streamId = await createChannel(iago, 'ev settings', [IDS.iago, IDS.hamlet]);
  const [qh, qo] = [await watch(hamlet, ['subscription']), await watch(othello, ['subscription'])];
  // No route sets these yet; the command is what the route will send.
  const set = (property: SubscriptionProperty, value: unknown) =>
    server.server.node.actors.ask(userAddress('zulip', IDS.hamlet), {
      type: 'user.subscriptionProperty',
      channel_id: streamId,
      property,
      value,
    });
  await set('pin_to_top', true);
  const pinned = await next(
    qh,
    of('subscription', (e) => e.stream_id === streamId && e.property === 'pin_to_top'),
  );
  t.like(pinned, { op: 'update', value: true });
  await set('is_muted', true);
  t.like(
    await next(
      qh,
      of('subscription', (e) => e.stream_id === streamId && e.property === 'in_home_view'),
    ),
    {
      value: false,
    },
  );
  t.true((await held(qh)).some((e) => e.property === 'is_muted' && e.value === true));
  t.true(await none(qo, (e) => e.stream_id === streamId));
});

test('subscription add and remove to the user, peer_add and peer_remove to the other subscribers', async (t) => {
  const { iago, hamlet, othello, cordelia } = t.context;
  const [qi, qh] = [await watch(iago, ['subscription']), await watch(hamlet, ['subscription'])];
  const [qo, qc] = [await watch(othello, ['subscription']), await watch(cordelia, ['subscription'])];
  const streamId = await createChannel(iago, 'ev members', [IDS.iago, IDS.hamlet]);
  const ofStream = (op: string) =>
    of('subscription', (e) => e.op === op && JSON.stringify(e.subscriptions ?? e.stream_ids).includes(`${streamId}`));
  const created = await next(qh, ofStream('add'));
  t.like((created.subscriptions as Body[])[0], { stream_id: streamId, name: 'ev members', invite_only: true });

  const principals = JSON.stringify([IDS.othello]);
  await bodyOf(
    iago.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'ev members' }]), principals }),
  );
  const added = await next(qo, ofStream('add'));
  const sub = (added.subscriptions as Body[])[0]!;
  t.like(sub, { stream_id: streamId, name: 'ev members', is_muted: false, in_home_view: true });
  t.deepEqual(sub.subscribers, [IDS.hamlet, IDS.iago, IDS.othello]);
  t.is(typeof sub.color, 'string');
  for (const q of [qi, qh])
    t.like(await next(q, ofStream('peer_add')), { stream_ids: [streamId], user_ids: [IDS.othello] });

  await bodyOf(iago.delete('/users/me/subscriptions', { subscriptions: JSON.stringify(['ev members']), principals }));
  const removed = await next(qo, ofStream('remove'));
  t.deepEqual(removed.subscriptions, [{ stream_id: streamId, name: 'ev members' }]);
  t.like(await next(qh, ofStream('peer_remove')), { stream_ids: [streamId], user_ids: [IDS.othello] });
  // Of this channel: the file's other tests run beside this one on the same server.
  t.false((await held(qo)).some(ofStream('peer_remove')));
  t.false((await held(qo)).some(ofStream('peer_add')));
  t.true(await none(qc, (e) => JSON.stringify(e).includes(`${streamId}`)));
});

test('stream update: description, name and privacy reach the subscribers of a private channel only', async (t) => {
  const { iago, hamlet, othello } = t.context;
  const streamId = await createChannel(iago, 'ev settings 2', [IDS.iago, IDS.hamlet]);
  const [qh, qo] = [await watch(hamlet, ['stream']), await watch(othello, ['stream'])];
  const property = (p: string) => of('stream', (e) => e.stream_id === streamId && e.property === p);
  await bodyOf(iago.patch(`/streams/${streamId}`, { description: 'About **this**' }));
  const description = await next(qh, property('description'));
  t.like(description, { op: 'update', name: 'ev settings 2', value: 'About **this**' });
  t.true((description.rendered_description as string).includes('<strong>this</strong>'));
  t.true(await none(qo, (e) => e.stream_id === streamId));

  await bodyOf(iago.patch(`/streams/${streamId}`, { new_name: 'ev renamed' }));
  t.like(await next(qh, property('name')), { name: 'ev settings 2', value: 'ev renamed' });
  await bodyOf(iago.patch(`/streams/${streamId}`, { is_private: false }));
  const privacy = await next(qh, property('invite_only'));
  t.like(privacy, { value: false, history_public_to_subscribers: true, is_web_public: false });
});
