import type { ChatClient } from '@chat/testkit';
import { withServer, type Logins } from './context.js';
import { newPerson, type Person } from './people.js';
import { next, register } from './queues.js';
import { bodyOf, refused, succeeds } from './replies.js';

/** Muted users and alert words: their register sections, events, and what they do to arriving messages. */
const test = withServer(['iago']);

type T = { context: Logins<'iago'> };

const people = (t: T, ...names: string[]) => Promise.all(names.map((name) => newPerson(t.context, name)));

const dm = async (from: Person, to: Person, content: string) =>
  (
    await bodyOf<{ id: number }>(
      from.client.post('/messages', { type: 'direct', to: JSON.stringify([to.user_id]), content }),
    )
  ).id;

async function flagsOf(client: ChatClient, id: number): Promise<string[]> {
  const { messages } = await bodyOf<{ messages: Array<{ flags: string[] }> }>(
    client.get('/messages', { anchor: id, num_before: 0, num_after: 0 }),
  );
  return messages[0]!.flags;
}

const mute = (who: Person, whom: number) =>
  succeeds('POST', `/users/me/muted_users/${whom}`, who.client.post(`/users/me/muted_users/${whom}`));

test('muting a user reads what they sent and will send; the section and the event list them', async (t) => {
  const [alice, bob] = (await people(t, 'Alice Muter', 'Bob Noisy')) as [Person, Person];
  const before = await dm(bob, alice, 'before the mute');
  t.false((await flagsOf(alice.client, before)).includes('read'));
  const queue = await register(alice.client, { event_types: ['muted_users', 'update_message_flags', 'message'] });
  await mute(alice, bob.user_id);
  const event = await next(queue, (e) => e.type === 'muted_users');
  const listed = event.muted_users as Array<{ id: number; timestamp: number }>;
  t.deepEqual(
    listed.map((m) => m.id),
    [bob.user_id],
  );
  const flags = await next(queue, (e) => e.type === 'update_message_flags' && e.op === 'add');
  t.deepEqual(flags.messages, [before]);
  t.true((await flagsOf(alice.client, before)).includes('read'));
  // A message sent after the mute arrives read, in the event and in the history.
  const after = await dm(bob, alice, 'after the mute');
  const arrived = await next(queue, (e) => e.type === 'message' && (e.message as { id: number }).id === after);
  t.true((arrived.flags as string[]).includes('read'));
  t.true((await flagsOf(alice.client, after)).includes('read'));
  const { snapshot } = await register(alice.client, { fetch_event_types: ['muted_users'] });
  t.deepEqual(snapshot.muted_users, listed);
  // Unmuted, Bob's messages are unread again when they arrive.
  await succeeds(
    'DELETE',
    `/users/me/muted_users/${bob.user_id}`,
    alice.client.delete(`/users/me/muted_users/${bob.user_id}`),
  );
  t.deepEqual((await next(queue, (e) => e.type === 'muted_users' && e !== event)).muted_users, []);
  const later = await dm(bob, alice, 'after the unmute');
  t.false((await flagsOf(alice.client, later)).includes('read'));
});

test('muting refuses oneself, unknown users, and doing it twice', async (t) => {
  const [alice, bob] = (await people(t, 'Alice Twice', 'Bob Twice')) as [Person, Person];
  await refused(t, alice.client.post(`/users/me/muted_users/${alice.user_id}`), 'Cannot mute self');
  await refused(t, alice.client.post('/users/me/muted_users/999999'), 'No such user');
  await refused(t, alice.client.delete('/users/me/muted_users/999999'), 'No such user');
  await refused(t, alice.client.delete(`/users/me/muted_users/${bob.user_id}`), 'User is not muted');
  await mute(alice, bob.user_id);
  await refused(t, alice.client.post(`/users/me/muted_users/${bob.user_id}`), 'User already muted');
});

test('alert words: added, listed, removed, with their section and event', async (t) => {
  const [alice] = (await people(t, 'Alice Words')) as [Person];
  const queue = await register(alice.client, { event_types: ['alert_words'] });
  const added = await succeeds<{ alert_words: string[] }>(
    'POST',
    '/users/me/alert_words',
    alice.client.post('/users/me/alert_words', { alert_words: JSON.stringify(['Coffee', 'tea time', ' ']) }),
  );
  t.deepEqual(added.alert_words, ['Coffee', 'tea time']);
  t.deepEqual((await next(queue, (e) => e.type === 'alert_words')).alert_words, ['Coffee', 'tea time']);
  // The same word in another case is the same word.
  const again = await bodyOf<{ alert_words: string[] }>(
    alice.client.post('/users/me/alert_words', { alert_words: JSON.stringify(['coffee']) }),
  );
  t.deepEqual(again.alert_words.length, 2);
  const listed = await succeeds<{ alert_words: string[] }>(
    'GET',
    '/users/me/alert_words',
    alice.client.get('/users/me/alert_words'),
  );
  t.deepEqual(listed.alert_words.map((w) => w.toLowerCase()).sort(), ['coffee', 'tea time']);
  const { snapshot } = await register(alice.client, { fetch_event_types: ['alert_words'] });
  t.deepEqual(snapshot.alert_words, listed.alert_words);
  const left = await succeeds<{ alert_words: string[] }>(
    'DELETE',
    '/users/me/alert_words',
    alice.client.delete('/users/me/alert_words', { alert_words: JSON.stringify(['TEA TIME']) }),
  );
  t.deepEqual(
    left.alert_words.map((w) => w.toLowerCase()),
    ['coffee'],
  );
  await refused(
    t,
    alice.client.post('/users/me/alert_words', { alert_words: JSON.stringify(['x'.repeat(101)]) }),
    'alert_words[0] is too long (limit: 100 characters)',
  );
});

test('a message with an alert word arrives with has_alert_word and keeps it', async (t) => {
  const [alice, bob] = (await people(t, 'Alice Alerted', 'Bob Alerting')) as [Person, Person];
  await bodyOf(alice.client.post('/users/me/alert_words', { alert_words: JSON.stringify(['pineapple']) }));
  const queue = await register(alice.client, { event_types: ['message'] });
  const hit = await dm(bob, alice, 'Who ate the PINEAPPLE?');
  const miss = await dm(bob, alice, 'pineapples are not the word');
  const arrived = await next(queue, (e) => e.type === 'message' && (e.message as { id: number }).id === hit);
  t.true((arrived.flags as string[]).includes('has_alert_word'));
  t.true((await flagsOf(alice.client, hit)).includes('has_alert_word'));
  t.false((await flagsOf(alice.client, miss)).includes('has_alert_word'));
  // The sender's own copy has no alert.
  t.false((await flagsOf(bob.client, hit)).includes('has_alert_word'));
});
