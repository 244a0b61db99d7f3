import type { ChatClient } from '@chat/testkit';
import { withServer, type Logins } from './context.js';
import { channel, channelOf, messagesIn, send } from './move-support.js';
import { newPerson, type Person } from './people.js';
import { absentBefore, next, register, type Event, type Queue } from './queues.js';
import { bodyOf, ok, succeeds } from './replies.js';

/**
 * Who has a message (the original's UserMessage rows) after the channel's
 * subscribers change: a former subscriber keeps what she received, a
 * reaction, a star or marking unread gives a message to who had it not (a
 * historical row), a move keeps it for who had it and is subscribed to the
 * destination or never was subscribed to the source, and each sees her
 * row's own flags.
 */
const test = withServer(['iago']);

type T = { context: Logins<'iago'> };

const unique = (what: string) => `${what} ${Date.now()} ${Math.random()}`;
const ids = (...who: Person[]) => who.map((p) => p.user_id).sort((a, b) => a - b);

/** People named `names` (and the test's tag), and a public channel of those `subscribed`. */
async function setup<N extends string>(t: T, tag: string, names: readonly N[], subscribed: readonly N[]) {
  const made = await Promise.all(names.map((n) => newPerson(t.context, `${n} ${tag}`)));
  const who = Object.fromEntries(names.map((n, i) => [n, made[i]!])) as Record<N, Person>;
  const name = unique(tag);
  const channelId = await channel(t.context.iago, name, ids(...subscribed.map((n) => who[n])));
  return { who, name, channelId };
}

const POLL = '/poll Where?\nPizza\nSushi';
const vote = (key: string) => JSON.stringify({ type: 'vote', key, vote: 1 });
const submit = (who: Person, id: number, content: string) =>
  bodyOf(who.client.post('/submessage', { message_id: id, msg_type: 'widget', content }));
const react = (who: Person, id: number, emoji_name = 'smile') =>
  ok(who.client, 'POST', `/messages/${id}/reactions`, { emoji_name });
const flag = (who: Person, id: number, op: 'add' | 'remove', flag: 'read' | 'starred') =>
  ok(who.client, 'POST', '/messages/flags', { messages: JSON.stringify([id]), op, flag });
const read = (who: Person, id: number) => flag(who, id, 'add', 'read');

/** The flags of each message of a channel, as `who` fetches them. */
async function flagsIn(who: Person, channelId: number): Promise<Map<number, string[]>> {
  return new Map((await messagesIn(who.client, channelOf(channelId))).map((m) => [m.id, m.flags]));
}
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
  const { who, name } = await setup(t, 'F', ['Alice', 'Bob', 'Carol', 'Dave'], ['Alice', 'Bob', 'Carol']);
  const { Alice: alice, Bob: bob, Carol: carol, Dave: dave } = who;
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
  const { who, name } = await setup(t, 'H', ['Alice', 'Bob', 'Erin'], ['Alice', 'Bob']);
  const { Alice: alice, Bob: bob, Erin: erin } = who;
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
  const { who, name: from } = await setup(t, 'M', ['Alice', 'Bob', 'Frank', 'Gina'], ['Alice', 'Bob', 'Frank']);
  const { Alice: alice, Bob: bob, Frank: frank, Gina: gina } = who;
  const to = unique('move to');
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

test("a former subscriber sees her row's own flags; what came after she left is read and historical", async (t) => {
  const { who, name, channelId } = await setup(t, 'R', ['Alice', 'Carol'], ['Alice', 'Carol']);
  const { Alice: alice, Carol: carol } = who;
  const mention = await send(alice.client, name, 'flags', `@**Carol R|${carol.user_id}** look`);
  const unread = await send(alice.client, name, 'flags', 'not read');
  const seen = await send(alice.client, name, 'flags', 'read');
  await Promise.all([flag(carol, mention, 'add', 'starred'), read(carol, seen)]);
  await unsubscribe(carol, name);
  const after = await send(alice.client, name, 'flags', 'after she left');
  const flags = await flagsIn(carol, channelId);
  t.deepEqual(flags.get(mention), ['starred', 'mentioned']);
  t.deepEqual(flags.get(unread), []);
  t.deepEqual(flags.get(seen), ['read']);
  t.deepEqual(flags.get(after), ['read', 'historical']);
  // Marking unread is for subscribed channels only, as the original ignores the others.
  t.deepEqual((await flag(carol, seen, 'remove', 'read')).messages, []);
});

test('starring or marking unread a message one does not have gives a historical row: later events reach her', async (t) => {
  const { who, name, channelId } = await setup(t, 'S', ['Alice', 'Bob', 'Dave', 'Erin'], ['Alice', 'Bob']);
  const { Alice: alice, Bob: bob, Dave: dave, Erin: erin } = who;
  const poll = await send(alice.client, name, 'lunch', POLL);
  await subscribe(dave, name);
  t.deepEqual((await flagsIn(dave, channelId)).get(poll), ['read', 'historical'], 'sent before he joined');
  // Marking it read changes nothing: a message without a row reads as read, and the original makes no row for it.
  t.deepEqual((await read(dave, poll)).messages, []);
  const [qd, qe] = await Promise.all([listen(dave), listen(erin)]);
  await flag(erin, poll, 'add', 'starred');
  await flag(dave, poll, 'remove', 'read');
  // The original's rows: a star's is read, starred and historical; an unread one only historical.
  t.deepEqual((await flagsIn(erin, channelId)).get(poll), ['read', 'starred', 'historical']);
  t.deepEqual((await flagsIn(dave, channelId)).get(poll), ['historical']);
  await submit(bob, poll, vote('canned,0'));
  t.like(await next(qd, votes(poll)), { sender_id: bob.user_id });
  t.like(await next(qe, votes(poll)), { sender_id: bob.user_id });
  await react(bob, poll);
  t.like(await next(qe, about('reaction', poll)), { user_id: bob.user_id });
  await ok(alice.client, 'PATCH', `/messages/${poll}`, { topic: 'dinner', propagate_mode: 'change_one' });
  t.like(await next(qe, about('update_message', poll)), { subject: 'dinner' });
  t.deepEqual(await receipts(alice.client, poll), [erin.user_id], 'his row is unread');
});

test('a move to a public channel keeps the historical rows of who never was subscribed to the source', async (t) => {
  const { who, name: from } = await setup(t, 'O', ['Alice', 'Bob', 'Erin'], ['Alice', 'Bob']);
  const { Alice: alice, Bob: bob, Erin: erin } = who;
  const target = await channel(t.context.iago, unique('move to'), ids(alice, bob));
  const poll = await send(alice.client, from, 'lunch', POLL);
  await flag(erin, poll, 'add', 'starred');
  const qe = await listen(erin);
  await ok(t.context.iago, 'PATCH', `/messages/${poll}`, { stream_id: target, propagate_mode: 'change_one' });
  t.like(await next(qe, about('update_message', poll)), { new_stream_id: target });
  await submit(bob, poll, vote('canned,0'));
  t.truthy(await next(qe, votes(poll)));
  t.deepEqual((await flagsIn(erin, target)).get(poll), ['read', 'starred', 'historical']);
  t.deepEqual(await receipts(alice.client, poll), [erin.user_id]);
});

test('someone whose only row in a public channel is historical, made a guest, hears no reactions there; made a member, does', async (t) => {
  const { who, name } = await setup(t, 'HG', ['Alice', 'Bob', 'Dan'], ['Alice', 'Bob']);
  const { Alice: alice, Bob: bob, Dan: dan } = who;
  const poll = await send(alice.client, name, 'lunch', POLL);
  // Never subscribed: starring it gives Dan a historical row.
  await flag(dan, poll, 'add', 'starred');
  const qd = await listen(dan);
  const role = (value: number) => ok(t.context.iago, 'PATCH', `/users/${dan.user_id}`, { role: value });
  await role(600);
  await react(bob, poll);
  await submit(bob, poll, vote('canned,0'));
  t.true(await absentBefore(qd, votes(poll), about('reaction', poll)));
  await role(400);
  await react(alice, poll);
  t.like(await next(qd, about('reaction', poll)), { user_id: alice.user_id });
});

test('a former subscriber made a guest hears no reactions in the public channel she left; made a member, she does', async (t) => {
  const { who, name } = await setup(t, 'G', ['Alice', 'Bob', 'Carol'], ['Alice', 'Bob', 'Carol']);
  const { Alice: alice, Bob: bob, Carol: carol } = who;
  const poll = await send(alice.client, name, 'lunch', POLL);
  await unsubscribe(carol, name);
  const qc = await listen(carol);
  const role = (value: number) => ok(t.context.iago, 'PATCH', `/users/${carol.user_id}`, { role: value });
  await role(600);
  await react(bob, poll);
  await submit(bob, poll, vote('canned,0'));
  // The original leaves guests out of a public channel's reactions by their role now; the vote is her row's.
  t.true(await absentBefore(qc, votes(poll), about('reaction', poll)));
  await role(400);
  await react(alice, poll);
  t.like(await next(qc, about('reaction', poll)), { user_id: alice.user_id });
});
