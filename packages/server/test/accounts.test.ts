import { channelAddress } from '@chat/protocol';
import { withServer } from './context.js';
import { TestServer, wrongKey } from './support.js';

const test = withServer([]);

test('GET /server_settings needs no credentials and names the realm', async (t) => {
  const { status, body } = await t.context.server.client.get('/server_settings');
  t.is(status, 200);
  t.is(body.result, 'success');
  t.is(body.realm_name, 'Zulip Dev');
  t.is(body.zulip_feature_level, 420);
  t.is(body.realm_url, t.context.server.server.url);
  t.true((body.authentication_methods as { dev: boolean }).dev);
  t.regex(body.realm_description as string, /^<p>The Zulip development environment/);
});

test('dev_fetch_api_key gives a key with which Iago is an administrator', async (t) => {
  const { client } = t.context.server;
  const grant = await client.post<{ api_key: string; email: string; user_id: number }>('/dev_fetch_api_key', {
    username: 'iago@zulip.com',
  });
  t.is(grant.status, 200);
  t.is(grant.body.email, 'iago@zulip.com');
  t.is(grant.body.user_id, 11);
  t.is(grant.body.api_key.length, 32);
  const me = await client.as({ email: 'iago@zulip.com', apiKey: grant.body.api_key }).get('/users/me');
  t.is(me.status, 200);
  t.like(me.body, { full_name: 'Iago', role: 200, is_admin: true, is_owner: false, is_guest: false, user_id: 11 });
});

test('dev_fetch_api_key refuses an unknown user', async (t) => {
  const { status, body } = await t.context.server.client.post('/dev_fetch_api_key', { username: 'nobody@zulip.com' });
  t.is(status, 401);
  t.is(body.code, 'AUTHENTICATION_FAILED');
});

test('the development realm has the original users with their names, roles and ids', async (t) => {
  const hamlet = await t.context.server.login('hamlet@zulip.com');
  const { body } = await hamlet.get<{ members: Array<Record<string, unknown>> }>('/users');
  const byEmail = Object.fromEntries(body.members.map((m) => [m.email as string, m]));
  const expected: Array<[string, string, number, number]> = [
    ['AARON@zulip.com', 'aaron', 400, 6],
    ['ZOE@zulip.com', 'Zoe', 400, 7],
    ['cordelia@zulip.com', "Cordelia, Lear's daughter", 400, 8],
    ['desdemona@zulip.com', 'Desdemona', 100, 9],
    ['hamlet@zulip.com', 'King Hamlet', 400, 10],
    ['iago@zulip.com', 'Iago', 200, 11],
    ['othello@zulip.com', 'Othello, the Moor of Venice', 400, 12],
    ['polonius@zulip.com', 'Polonius', 600, 13],
    ['prospero@zulip.com', 'Prospero from The Tempest', 400, 14],
    ['shiva@zulip.com', 'शिव', 300, 15],
  ];
  // The humans of the original, plus the bot that posts automated notices.
  t.is(body.members.length, expected.length + 1);
  t.like(byEmail['notification-bot@zulip.com'], { full_name: 'Notification Bot', is_bot: true, user_id: 16 });
  for (const [email, full_name, role, user_id] of expected) {
    t.like(byEmail[email], { full_name, role, user_id, is_active: true, is_bot: false, avatar_url: null });
  }
  const one = await hamlet.get<{ user: Record<string, unknown> }>('/users/13', { client_gravatar: false });
  t.like(one.body.user, { full_name: 'Polonius', is_guest: true });
  t.regex(one.body.user.avatar_url as string, /^https:\/\/secure\.gravatar\.com\/avatar\//);
});

test('the development realm has the original channels and subscriptions', async (t) => {
  const { actors } = t.context.server.server.node;
  const channel = (id: number) => actors.ask(channelAddress('zulip', id), { type: 'channel.info' });
  const names = await Promise.all([1, 2, 3, 4, 5, 6, 7, 8].map(async (id) => (await channel(id)).name));
  t.deepEqual(names, ['Zulip', 'sandbox', 'Verona', 'Denmark', 'Rome', 'Scotland', 'Venice', 'core team']);
  t.deepEqual((await channel(3)).subscribers, [6, 7, 8, 9, 10, 11, 12, 13, 14, 15]);
  t.deepEqual((await channel(5)).subscribers, [7]);
  t.like(await channel(5), { is_web_public: true, invite_only: false });
  t.like(await channel(8), { invite_only: true, subscribers: [9, 10, 11] });
});

test('a restart does not create the development realm twice', async (t) => {
  const dir = await (await import('./support.js')).tempDir('restart');
  const first = await TestServer.start({ dataDir: dir });
  const key = (await first.login('iago@zulip.com')).credentials!;
  await first.server.close();
  const second = await TestServer.start({ dataDir: dir });
  const me = await second.client.as(key).get('/users/me');
  t.is(me.status, 200);
  const users = await second.client.as(key).get<{ members: unknown[] }>('/users');
  t.is(users.body.members.length, 11);
  await second.stop();
});

test('POST /users creates an account that can fetch its API key with its password', async (t) => {
  const { server } = t.context;
  const iago = await server.login('iago@zulip.com');
  const created = await iago.post<{ user_id: number }>('/users', {
    email: 'newbie@zulip.com',
    password: 'correct horse battery staple',
    full_name: 'New Bie',
  });
  t.is(created.status, 200);
  const grant = await server.client.post<{ api_key: string; user_id: number }>('/fetch_api_key', {
    username: 'newbie@zulip.com',
    password: 'correct horse battery staple',
  });
  t.is(grant.status, 200);
  t.is(grant.body.user_id, created.body.user_id);
  const me = await server.client.as({ email: 'newbie@zulip.com', apiKey: grant.body.api_key }).get('/users/me');
  t.like(me.body, { full_name: 'New Bie', role: 400 });

  const duplicate = await iago.post('/users', { email: 'NEWBIE@zulip.com', password: 'x', full_name: 'Again' });
  t.is(duplicate.status, 400);
  t.is(duplicate.body.code, 'BAD_REQUEST');
  const byMember = await (
    await server.login('hamlet@zulip.com')
  ).post('/users', {
    email: 'other@zulip.com',
    password: 'x',
    full_name: 'Other',
  });
  t.is(byMember.status, 400);
  t.is(byMember.body.msg, 'Must be an organization administrator');
});

test('fetch_api_key refuses a wrong password and an unknown user alike', async (t) => {
  const { client } = t.context.server;
  const wrong = await client.post('/fetch_api_key', { username: 'iago@zulip.com', password: 'nope' });
  const unknown = await client.post('/fetch_api_key', { username: 'ghost@zulip.com', password: 'nope' });
  for (const reply of [wrong, unknown]) {
    t.is(reply.status, 401);
    t.deepEqual(reply.body, {
      result: 'error',
      msg: 'Your username or password is incorrect',
      code: 'AUTHENTICATION_FAILED',
    });
  }
});

test('a wrong API key for a real user is refused', async (t) => {
  const reply = await t.context.server.client.as(wrongKey('iago@zulip.com')).get('/users/me');
  t.is(reply.status, 401);
  t.is(reply.body.code, 'INVALID_API_KEY');
});
