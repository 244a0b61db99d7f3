import anyTest, { type TestFn } from 'ava';
import { assertResponse, type ChatClient, type Reply } from '@chat/testkit';
import { expectOk } from './matrix-fixtures.js';
import { eventsUntil, next, register, type Event } from './queues.js';
import { TestServer } from './support.js';

/**
 * What a member who is not in a private channel must never learn of it:
 * its messages (by narrow, by id, by search, by matching), its topics, its
 * subscribers, its events, and the files linked only there. Each test
 * first shows the data to someone allowed (hamlet, subscribed), then
 * checks othello (a member, not subscribed) does not get it, so a leak
 * fails the test. Personal data is leaks-personal.test.ts's part, the
 * other realm leaks-realms.test.ts's.
 */
interface Context {
  server: TestServer;
  hamlet: ChatClient;
  othello: ChatClient;
  iago: ChatClient;
  vault: number;
  /** A message of the vault, with a word found nowhere else. */
  secret: number;
  /** A file linked only in the vault. */
  file: string;
}
const test = anyTest as TestFn<Context>;
const WORD = 'zanzibarquux';

test.before(async (t) => {
  const server = await TestServer.start();
  const [hamlet, othello, iago] = await Promise.all(
    ['hamlet', 'othello', 'iago'].map((name) => server.login(`${name}@zulip.com`)),
  );
  const vault = (
    await expectOk(
      iago.post<{ id: number }>('/channels/create', { name: 'leak vault', subscribers: [10, 11], invite_only: true }),
    )
  ).id;
  const file = [{ name: 'plans.txt', data: Buffer.from('the plans') }];
  const uploaded = (await expectOk(hamlet.upload<{ url: string }>('/user_uploads', file))).url;
  const content = `${WORD} [plans](${uploaded})`;
  const sent = await expectOk(
    hamlet.post<{ id: number }>('/messages', { type: 'stream', to: vault, topic: 'hidden topic', content }),
  );
  Object.assign(t.context, { server, hamlet, othello, iago, vault, secret: sent.id, file: uploaded });
});
test.after.always(async (t) => {
  await t.context.server?.stop();
});

const latest = (narrow: unknown[]) => ({ anchor: 'newest', num_before: 100, num_after: 0, narrow });
const idsIn = (reply: Reply) => ((reply.body.messages as Array<{ id: number }> | undefined) ?? []).map((m) => m.id);

test('a channel narrow: the subscriber gets the message, the outsider none of it', async (t) => {
  const { hamlet, othello, vault, secret } = t.context;
  for (const operand of [vault, 'leak vault']) {
    const narrow = [{ operator: 'channel', operand }];
    t.true(idsIn(await hamlet.get('/messages', latest(narrow))).includes(secret));
    const reply = await othello.get('/messages', latest(narrow));
    // The original answers an empty success (it reads only the outsider's own rows); this server refuses,
    // as for a channel it does not know. Either way nothing of the channel comes back.
    if (reply.status === 200) t.deepEqual(idsIn(reply), []);
    else t.like(reply, { status: 400, body: { result: 'error', code: 'BAD_REQUEST' } });
    t.false(JSON.stringify(reply.body).includes(WORD));
  }
});

test('by id: the outsider gets what an unknown id gets', async (t) => {
  const { hamlet, othello, secret } = t.context;
  assertResponse('GET', `/messages/${secret}`, 200, (await hamlet.get(`/messages/${secret}`)).body);
  const hidden = await othello.get(`/messages/${secret}`);
  t.like(hidden, { status: 400, body: { code: 'BAD_REQUEST', msg: 'Invalid message(s)' } });
  t.deepEqual(hidden.body, (await othello.get(`/messages/${secret + 64}`)).body);
  // Nor through what acts on a message by id: history, reactions, flags.
  const refusals = [
    await othello.get(`/messages/${secret}/history`),
    await othello.post(`/messages/${secret}/reactions`, { emoji_name: 'eyes' }),
    await othello.post('/messages/flags', { messages: [secret], op: 'add', flag: 'starred' }),
  ];
  for (const reply of refusals) t.like(reply.body, { code: 'BAD_REQUEST', msg: 'Invalid message(s)' });
});

test('search and narrow matching find the message for the subscriber only', async (t) => {
  const { hamlet, othello, secret } = t.context;
  const search = latest([{ operator: 'search', operand: WORD }]);
  t.deepEqual(idsIn(await hamlet.get('/messages', search)), [secret]);
  const found = await othello.get('/messages', search);
  t.is(found.status, 200);
  t.deepEqual(idsIn(found), []);
  const everything = await othello.get('/messages', latest([]));
  t.false(idsIn(everything).includes(secret));
  const params = { msg_ids: [secret], narrow: [{ operator: 'search', operand: WORD }] };
  const theirs = await hamlet.get<{ messages: Record<string, unknown> }>('/messages/matches_narrow', params);
  t.deepEqual(Object.keys(theirs.body.messages), [String(secret)]);
  const mine = await othello.get<{ messages: Record<string, unknown> }>('/messages/matches_narrow', params);
  assertResponse('GET', '/messages/matches_narrow', 200, mine.body);
  t.deepEqual(mine.body.messages, {});
});

test('its topics and subscribers are the subscriber’s to know', async (t) => {
  const { hamlet, othello, iago, vault } = t.context;
  const topics = await hamlet.get<{ topics: Array<{ name: string }> }>(`/users/me/${vault}/topics`);
  t.deepEqual(
    topics.body.topics.map((x) => x.name),
    // Newest first: the notification bot's notice of the channel's creation came first.
    ['hidden topic', 'channel events'],
  );
  t.like(await othello.get(`/users/me/${vault}/topics`), { status: 400, body: { msg: 'Invalid channel ID' } });
  t.deepEqual((await hamlet.get(`/streams/${vault}/members`)).body.subscribers, [10, 11]);
  t.like(await othello.get(`/streams/${vault}/members`), { status: 400, body: { msg: 'Invalid channel ID' } });
  t.like(await othello.get(`/streams/${vault}`), { status: 400, body: { msg: 'Invalid channel ID' } });
  t.like(await othello.get('/get_stream_id', { stream: 'leak vault' }), {
    status: 400,
    body: { msg: "Invalid channel name 'leak vault'" },
  });
  // Listings and the register snapshot leave it out; an administrator sees it (maySeeAllChannels).
  const listed = async (client: ChatClient) =>
    ((await client.get('/streams', { include_all: true })).body.streams as Array<{ stream_id: number }>).some(
      (s) => s.stream_id === vault,
    );
  t.true(await listed(iago));
  t.false(await listed(othello));
  const { snapshot } = await register(othello, { fetch_event_types: ['subscription', 'stream'] });
  t.notRegex(JSON.stringify(snapshot), /leak vault/);
});

test('its message events reach subscribers, never the queues of an outsider', async (t) => {
  const { hamlet, othello, iago, vault } = t.context;
  const types = { event_types: ['message', 'user_settings'] };
  const narrow = { narrow: [['channel', 'leak vault']] };
  const subscriber = await register(hamlet, { event_types: ['message'], ...narrow });
  const everyPublic = await register(othello, { ...types, all_public_streams: true });
  const narrowed = await register(othello, { ...types, ...narrow });
  const send = (to: string | number, content: string) =>
    expectOk(iago.post<{ id: number }>('/messages', { type: 'stream', to, topic: 'events', content }));
  const secret = await send(vault, 'still secret');
  await next(subscriber, (e) => e.type === 'message' && (e.message as Event).id === secret.id);
  const open = await send('Rome', 'public, othello is not in it');
  const own = await send('Verona', 'public, othello is in it');
  // Spec 21: all_public_streams receives every public channel's messages, subscribed or not; those of
  // channels he is not in come through the realm (actors/channel/src/public-relay.ts), so wait for one.
  await next(everyPublic, (e) => e.type === 'message' && (e.message as Event).id === open.id);
  // A change of othello's own settings travels through his user actor after the vault's message had
  // passed it, so whatever the vault sent his queues is in them by the time this arrives.
  await expectOk(othello.patch('/settings', { twenty_four_hour_time: true }));
  const seen = async (queue: Parameters<typeof eventsUntil>[0]) =>
    (await eventsUntil(queue, (e) => e.type === 'user_settings'))
      .filter((e) => e.type === 'message')
      .map((e) => (e.message as Event).id);
  const everyPublicSaw = await seen(everyPublic);
  t.true(everyPublicSaw.includes(own.id), 'the queue receives messages');
  t.false(everyPublicSaw.includes(secret.id));
  t.deepEqual(await seen(narrowed), []);
  t.is(everyPublicSaw.filter((id) => id === open.id).length, 1);
});

test('a file linked only in the channel is not served to an outsider', async (t) => {
  const { hamlet, othello, iago, file } = t.context;
  const download = async (client: ChatClient) => {
    const response = await client.fetch('GET', `/${file}`);
    return { status: response.status, text: await response.text() };
  };
  t.deepEqual(await download(hamlet), { status: 200, text: 'the plans' });
  t.deepEqual(await download(iago), { status: 200, text: 'the plans' });
  // The original's serve_file: the file exists, so the refusal is 403, not 404 (its path is not guessable).
  const refusal = { result: 'error', code: 'FORBIDDEN', msg: 'You are not authorized to view this file.' };
  const hidden = await download(othello);
  t.is(hidden.status, 403);
  t.false(hidden.text.includes('the plans'));
  t.deepEqual(JSON.parse(hidden.text), refusal);
  // Nor a temporary URL for it (GET /api/v1/user_uploads/...).
  t.is((await iago.get(file)).status, 200);
  const temporary = await othello.get(file);
  t.is(temporary.status, 403);
  t.deepEqual(temporary.body, refusal);
});
