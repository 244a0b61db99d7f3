import anyTest, { type TestFn } from 'ava';
import type { ChatClient, Reply } from '@chat/testkit';
import { expectOk, otherRealm, type OtherAccount } from './matrix-fixtures.js';
import { eventsUntil, register } from './queues.js';
import { TestServer } from './support.js';

/**
 * Two organizations on one server: the owner of the second (`other`,
 * reached through its subdomain) learns nothing of the development realm,
 * neither its people, its channels, its messages nor its files, by any
 * read or any event. Each check first shows the data to hamlet, then
 * looks for it in what the other realm gets.
 */
interface Context {
  server: TestServer;
  hamlet: ChatClient;
  boss: OtherAccount;
  message: number;
  file: string;
}
const test = anyTest as TestFn<Context>;
const WORD = 'quetzalcoatlus';
/** Addresses of the development realm's people in a text (the other realm has its own notification bot). */
const ourEmails = (text: string) =>
  (text.match(/[\w.-]+@zulip\.com/g) ?? []).filter((e) => e !== 'notification-bot@zulip.com');

test.before(async (t) => {
  const server = await TestServer.start();
  const hamlet = await server.login('hamlet@zulip.com');
  const { owner: boss } = await otherRealm(server);
  const upload = [{ name: 'realm.txt', data: Buffer.from('realm file') }];
  const file = (await expectOk(hamlet.upload<{ url: string }>('/user_uploads', upload))).url;
  const content = `${WORD} [file](${file})`;
  const sent = await expectOk(
    hamlet.post<{ id: number }>('/messages', { type: 'stream', to: 'Verona', topic: 'x', content }),
  );
  Object.assign(t.context, { server, hamlet, boss, message: sent.id, file });
});
test.after.always(async (t) => {
  await t.context.server?.stop();
});

const emailsOf = (reply: Reply) => ((reply.body.members as Array<{ email: string }>) ?? []).map((u) => u.email);
const namesOf = (reply: Reply) => ((reply.body.streams as Array<{ name: string }>) ?? []).map((s) => s.name);
const idsOf = (reply: Reply) => ((reply.body.messages as Array<{ id: number }>) ?? []).map((m) => m.id);
const newest = (narrow: unknown[] = []) => ({ anchor: 'newest', num_before: 100, num_after: 0, narrow });

test('its people are not listed or found', async (t) => {
  const { hamlet, boss } = t.context;
  t.true(emailsOf(await hamlet.get('/users')).includes('hamlet@zulip.com'));
  const theirs = emailsOf(await boss.client.get('/users'));
  t.deepEqual(ourEmails(theirs.join(' ')), []);
  t.like(await boss.client.get('/users/10'), { status: 400, body: { msg: 'No such user' } });
  t.like(await boss.client.get('/users/10/status'), { status: 400, body: { msg: 'No such user' } });
  t.like(await boss.client.get('/users/hamlet@zulip.com/presence'), { status: 400, body: { msg: 'No such user' } });
  t.like(await boss.client.post('/typing', { op: 'start', to: [10] }), { status: 400, body: { code: 'BAD_REQUEST' } });
  const direct = await boss.client.post('/messages', { type: 'direct', to: [10], content: 'hello?' });
  t.like(direct, { status: 400, body: { code: 'BAD_REQUEST' } });
});

test('its channels are not listed or found', async (t) => {
  const { hamlet, boss } = t.context;
  t.true(namesOf(await hamlet.get('/streams')).includes('Verona'));
  t.deepEqual(namesOf(await boss.client.get('/streams', { include_all: true })), []);
  t.like(await boss.client.get('/get_stream_id', { stream: 'Verona' }), {
    status: 400,
    body: { msg: "Invalid channel name 'Verona'" },
  });
  for (const path of ['/streams/3', '/streams/3/members', '/users/me/3/topics']) {
    t.like(await boss.client.get(path), { status: 400, body: { msg: 'Invalid channel ID' } }, path);
  }
});

test('its messages are not fetched, found or matched', async (t) => {
  const { hamlet, boss, message } = t.context;
  t.true(idsOf(await hamlet.get('/messages', newest())).includes(message));
  t.false(idsOf(await boss.client.get('/messages', newest())).includes(message));
  t.deepEqual(idsOf(await boss.client.get('/messages', newest([{ operator: 'search', operand: WORD }]))), []);
  t.like(await boss.client.get(`/messages/${message}`), { status: 400, body: { msg: 'Invalid message(s)' } });
  const matched = await boss.client.get('/messages/matches_narrow', { msg_ids: [message], narrow: [] });
  t.deepEqual(matched.body.messages, {});
  const reacted = await boss.client.post(`/messages/${message}/reactions`, { emoji_name: 'eyes' });
  t.like(reacted, { status: 400, body: { msg: 'Invalid message(s)' } });
});

test('its files are not served', async (t) => {
  const { hamlet, boss, file } = t.context;
  t.is((await hamlet.fetch('GET', `/${file}`)).status, 200);
  // Another realm holds no such file: 404, where a reader of this realm who may not see it gets 403.
  const missing = { result: 'error', code: 'NOT_FOUND', msg: 'File not found' };
  const bytes = await boss.client.fetch('GET', `/${file}`);
  t.is(bytes.status, 404);
  const text = await bytes.text();
  t.false(text.includes('realm file'));
  t.deepEqual(JSON.parse(text), missing);
  const temporary = await boss.client.get(file);
  t.is(temporary.status, 404);
  t.deepEqual(temporary.body, missing);
});

test('its credentials open nothing in the other realm, and the other way round', async (t) => {
  const { hamlet, boss } = t.context;
  const hamletThere = boss.client.as(hamlet.credentials);
  t.like(await hamletThere.get('/users/me'), { status: 401, body: { code: 'INVALID_API_KEY' } });
  const bossHere = hamlet.as(boss.client.credentials);
  t.like(await bossHere.get('/users/me'), { status: 401, body: { code: 'INVALID_API_KEY' } });
});

test('its snapshot and its events stay in it', async (t) => {
  const { hamlet, boss } = t.context;
  const { snapshot } = await register(boss.client, {
    fetch_event_types: ['realm_user', 'subscription', 'stream', 'user_status', 'presence'],
  });
  t.true(JSON.stringify(snapshot.realm_users).includes(boss.email), 'the snapshot lists its own people');
  t.deepEqual(ourEmails(JSON.stringify(snapshot)), []);
  t.notRegex(JSON.stringify(snapshot), /Verona|Denmark|King Hamlet/);
  const queue = await register(boss.client, {});
  // Changes in the development realm that reach every one of its accounts...
  await expectOk(hamlet.post('/messages', { type: 'stream', to: 'Verona', topic: 'x', content: `${WORD} again` }));
  await expectOk(hamlet.post('/users/me/status', { status_text: 'hamlet is busy' }));
  await expectOk(hamlet.post('/users/me/subscriptions', { subscriptions: [{ name: 'hamlet new channel' }] }));
  // ...then one of the boss's own, which arrives after anything they could have sent him.
  await expectOk(boss.client.patch('/settings', { twenty_four_hour_time: true }));
  const events = await eventsUntil(queue, (e) => e.type === 'user_settings');
  const text = JSON.stringify(events);
  t.false(text.includes(WORD));
  t.false(text.includes('hamlet'));
  t.deepEqual(ourEmails(text), []);
});
