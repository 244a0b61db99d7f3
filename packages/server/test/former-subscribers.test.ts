import type { ChatClient } from '@chat/testkit';
import { withServer, type Logins } from './context.js';
import { channel, send } from './move-support.js';
import { newPerson, type Person } from './people.js';
import { absentBefore, next, register, type Event, type Queue } from './queues.js';
import { bodyOf, ok, succeeds } from './replies.js';

/**
 * Who has a message (the original's UserMessage rows) after the channel's
 * subscribers change: a former subscriber keeps what she received, a
 * reaction gives a message to who had it not (a historical row), and a
 * move keeps it only for who had it and is subscribed to the destination.
 */
const test = withServer(['iago']);

type T = { context: Logins<'iago'> };

const people = (t: T, ...names: string[]) => Promise.all(names.map((name) => newPerson(t.context, name)));
const unique = (what: string) => `${what} ${Date.now()} ${Math.random()}`;
const ids = (...who: Person[]) => who.map((p) => p.user_id).sort((a, b) => a - b);

const POLL = '/poll Where?\nPizza\nSushi';
const vote = (key: string) => JSON.stringify({ type: 'vote', key, vote: 1 });
const submit = (who: Person, id: number, content: string) =>
  bodyOf(who.client.post('/submessage', { message_id: id, msg_type: 'widget', content }));
const react = (who: Person, id: number, emoji_name = 'smile') =>
  ok(who.client, 'POST', `/messages/${id}/reactions`, { emoji_name });
const read = (who: Person, id: number) =>
  ok(who.client, 'POST', '/messages/flags', { messages: JSON.stringify([id]), op: 'add', flag: 'read' });
const subscribe = (who: Person, name: string) =>
  ok(who.client, 'POST', '/users/me/subscriptions', { subscriptions: JSON.stringify([{ name }]) });
const unsubscribe = (who: Person, name: string) =>
  ok(who.client, 'DELETE', '/users/me/subscriptions', { subscriptions: JSON.stringify([name]) });
const listen = (who: Person) =>
  register(who.client, { event_types: JSON.stringify(['submessage', 'reaction', 'update_message', 'delete_message']) });

async function receipts(client: ChatClient, id: number): Promise<number[]> {
  const path = `/messages/${id}/read_receipts`;
  return (await succeeds<{ user_ids: number[] }>('GET', path, client.get(path))).user_ids;
}

const about = (type: string, id: number) => (e: Event) =>
  e.type === type && (e.message_id === id || (e.message_ids as number[] | undefined)?.includes(id) === true);
const votes = (id: number) => (e: Event) => e.type === 'submessage' && e.message_id === id;

test('a former subscriber keeps what she received: votes, reactions, edits and deletions reach her, receipts count her', async (t) => {
  const [alice, bob, carol, dave] = (await people(t, 'Alice F', 'Bob F', 'Carol F', 'Dave F')) as [
    Person,
    Person,
    Person,
    Person,
  ];
  const name = unique('former');
  await channel(t.context.iago, name, ids(alice, bob, carol));
  const poll = await send(alice.client, name, 'lunch', POLL);
  const plain = await send(alice.client, name, 'lunch', 'plain');
  await read(carol, poll);
  const [qc, qd] = await Promise.all([listen(carol), listen(dave)]);
  await unsubscribe(carol, name);
  await subscribe(dave, name);

  await submit(bob, poll, vote('canned,0'));
  t.like(await next(qc, votes(poll)), { sender_id: bob.user_id, content: vote('canned,0') });
  await react(bob, poll);
  t.like(await next(qc, about('reaction', poll)), { op: 'add', user_id: bob.user_id });
  // Dave subscribed after the poll was sent: no row, so no vote; as a subscriber of a public channel he hears reactions.
  t.true(await absentBefore(qd, about('reaction', poll), votes(poll)));
  t.deepEqual(await receipts(alice.client, poll), [carol.user_id]);

  await ok(alice.client, 'PATCH', `/messages/${plain}`, { content: 'plain, edited' });
  t.like(await next(qc, about('update_message', plain)), { content: 'plain, edited' });
  await ok(alice.client, 'DELETE', `/messages/${plain}`);
  t.truthy(await next(qc, about('delete_message', plain)));
});

test('reacting to a public message without having it gives it: later votes reach her and receipts count her', async (t) => {
  const [alice, bob, erin] = (await people(t, 'Alice H', 'Bob H', 'Erin H')) as [Person, Person, Person];
  const name = unique('historical');
  await channel(t.context.iago, name, ids(alice, bob));
  const poll = await send(alice.client, name, 'lunch', POLL);
  const qe: Queue = await listen(erin);
  await submit(bob, poll, vote('canned,0'));
  await react(erin, poll, 'tada');
  t.like(await next(qe, about('reaction', poll)), { user_id: erin.user_id });
  t.false(qe.seen.some(votes(poll)), 'the vote before her reaction is not hers');
  await submit(bob, poll, vote('canned,1'));
  t.like(await next(qe, votes(poll)), { content: vote('canned,1') });
  await react(bob, poll);
  t.like(await next(qe, (e) => about('reaction', poll)(e) && e.user_id === bob.user_id), { op: 'add' });
  // The original's historical row is read: she counts among who read it.
  t.deepEqual(await receipts(alice.client, poll), [erin.user_id]);
});

test('a message moved to a public channel is had by who had it and is subscribed there, not by who joined it since', async (t) => {
  const [alice, bob, frank, gina] = (await people(t, 'Alice M', 'Bob M', 'Frank M', 'Gina M')) as [
    Person,
    Person,
    Person,
    Person,
  ];
  const [from, to] = [unique('move from'), unique('move to')];
  await channel(t.context.iago, from, ids(alice, bob, frank));
  const target = await channel(t.context.iago, to, ids(alice, bob));
  const poll = await send(alice.client, from, 'lunch', POLL);
  await Promise.all([read(bob, poll), read(frank, poll)]);
  // Gina joins the destination after the poll was sent, Frank is not in it.
  await subscribe(gina, to);
  const [qb, qg] = await Promise.all([listen(bob), listen(gina)]);
  await ok(t.context.iago, 'PATCH', `/messages/${poll}`, { stream_id: target, propagate_mode: 'change_one' });
  // Bob's read state follows the message before his update_message is sent.
  t.like(await next(qb, about('update_message', poll)), { new_stream_id: target });
  await submit(bob, poll, vote('canned,0'));
  t.truthy(await next(qb, votes(poll)));
  await react(bob, poll);
  t.true(await absentBefore(qg, about('reaction', poll), votes(poll)));
  // Frank had it, but the original drops his row when it leaves for a channel he is not in.
  t.deepEqual(await receipts(alice.client, poll), [bob.user_id]);
});
