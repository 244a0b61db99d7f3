import type { ChatClient } from '@chat/testkit';
import { IDS, withServer } from './context.js';
import { next, poll, register, snapshotOf, type Event } from './queues.js';

/**
 * Bots (`/bots`): who may make which type, what owners and administrators
 * hear, what a bot's key opens, and its storage (`/bot_storage`).
 */
const test = withServer(['iago', 'hamlet', 'othello', 'polonius']);

interface Made {
  user_id: number;
  api_key: string;
  email: string;
  client: ChatClient;
}

let counter = 0;
async function makeBot(
  t: { context: { server: { client: ChatClient } } },
  owner: ChatClient,
  params: Record<string, unknown> = {},
): Promise<Made> {
  counter += 1;
  const short = `b${counter}x${Date.now()}`;
  const reply = await owner.post<{ user_id: number; api_key: string }>('/bots', {
    full_name: `Bot ${short}`,
    short_name: short,
    ...params,
  });
  if (reply.status !== 200) throw new Error(`POST /bots: ${JSON.stringify(reply.body)}`);
  const { user_id, api_key } = reply.body;
  const email = `${short}-bot@${new URL(owner.baseUrl).hostname}`;
  return { user_id, api_key, email, client: t.context.server.client.as({ email, apiKey: api_key }) };
}

const aboutBot = (id: number) => (e: Event) =>
  (e.type === 'realm_bot' || e.type === 'realm_user') &&
  ((e.bot ?? e.person) as { user_id?: number } | undefined)?.user_id === id;

test('a member makes a generic bot: its key works, the owner and administrators hear realm_bot, everyone realm_user', async (t) => {
  const { iago, hamlet, othello } = t.context;
  const types = JSON.stringify(['realm_bot', 'realm_user']);
  const [mine, admin, other] = await Promise.all(
    [hamlet, iago, othello].map((c) => register(c, { event_types: types })),
  );
  const bot = await makeBot(t, hamlet);

  const added = await next(mine, (e) => e.type === 'realm_bot' && e.op === 'add' && aboutBot(bot.user_id)(e));
  t.like(added.bot, {
    user_id: bot.user_id,
    email: bot.email,
    bot_type: 1,
    api_key: bot.api_key,
    owner_id: IDS.hamlet,
  });
  t.deepEqual((added.bot as { services: unknown[] }).services, []);
  await next(admin, (e) => e.type === 'realm_bot' && aboutBot(bot.user_id)(e));
  const person = await next(other, (e) => e.type === 'realm_user' && aboutBot(bot.user_id)(e));
  t.like(person.person, { is_bot: true, bot_type: 1, bot_owner_id: IDS.hamlet });
  await poll(other, true);
  t.false(
    other.seen.some((e) => e.type === 'realm_bot' && aboutBot(bot.user_id)(e)),
    'a member hears no realm_bot',
  );

  const me = await bot.client.get<{ user_id: number; is_bot: boolean }>('/users/me');
  t.is(me.status, 200);
  t.like(me.body, { user_id: bot.user_id, is_bot: true });
  const listed = await hamlet.get<{ bots: Array<{ username: string; api_key: string }> }>('/bots');
  t.truthy(listed.body.bots.find((b) => b.username === bot.email && b.api_key === bot.api_key));
  t.false(
    (await othello.get<{ bots: Array<{ username: string }> }>('/bots')).body.bots.some((b) => b.username === bot.email),
  );

  const users = (await snapshotOf(othello, { fetch_event_types: JSON.stringify(['realm_user']) })).realm_users as Array<
    Record<string, unknown>
  >;
  t.like(
    users.find((u) => u.user_id === bot.user_id),
    { is_bot: true, bot_type: 1, bot_owner_id: IDS.hamlet },
  );
  const section = async (c: ChatClient) =>
    (await snapshotOf(c, { fetch_event_types: JSON.stringify(['realm_bot']) })).realm_bots as Array<{
      user_id: number;
    }>;
  t.true((await section(hamlet)).some((b) => b.user_id === bot.user_id));
  t.true((await section(iago)).some((b) => b.user_id === bot.user_id));
  t.false((await section(othello)).some((b) => b.user_id === bot.user_id));

  // Bots have no password: the password login refuses them.
  const login = await t.context.server.client.post('/fetch_api_key', { username: bot.email, password: '' });
  t.is(login.body.code, 'AUTHENTICATION_FAILED');
});

test("creation follows the original's rules and words", async (t) => {
  const { hamlet, othello, polonius } = t.context;
  const refuse = async (client: ChatClient, params: Record<string, unknown>, msg: string) => {
    const reply = await client.post('/bots', { full_name: 'Rule Bot', short_name: `rule${Date.now()}`, ...params });
    t.is(reply.status, 400, JSON.stringify(reply.body));
    t.like(reply.body, { code: 'BAD_REQUEST', msg }, JSON.stringify(params));
  };
  await refuse(polonius, {}, 'Not allowed for guest users');
  const bot = await makeBot(t, hamlet);
  await refuse(bot.client, {}, 'This endpoint does not accept bot requests.');
  await refuse(hamlet, { short_name: '   ' }, 'Bad name or username');
  await refuse(hamlet, { short_name: 'a b' }, 'Bad name or username');
  await refuse(hamlet, { full_name: 'x' }, 'Name too short!');
  await refuse(hamlet, { bot_type: 4 }, 'Embedded bots are not enabled.');
  await refuse(hamlet, { bot_type: 9 }, 'Invalid bot type');
  await refuse(hamlet, { bot_type: 3, interface_type: 5 }, 'Invalid interface type');
  await refuse(hamlet, { bot_type: 3, payload_url: JSON.stringify('not a url') }, 'payload_url is not a URL');
  await refuse(hamlet, { short_name: bot.email.split('-bot@')[0] }, 'Username already in use');
  await refuse(hamlet, { full_name: 'King Hamlet' }, 'Name is already in use!');
  await refuse(hamlet, { default_sending_stream: 'no such channel' }, "Invalid channel name 'no such channel'");
  // A private channel the caller is not in is not theirs to name.
  await refuse(othello, { default_sending_stream: 'core team' }, "Invalid channel name 'core team'");
});

// Serial: it changes who may make bots, which the other tests rely on.
test.serial(
  'can_create_bots_group allows every type, can_create_write_only_bots_group incoming webhooks only',
  async (t) => {
    const { iago, hamlet } = t.context;
    const set = async (name: string, group: number) => {
      const reply = await iago.patch('/realm', { [name]: JSON.stringify({ new: group }) });
      t.is(reply.status, 200, JSON.stringify(reply.body));
    };
    const [administrators, members, nobody] = [6, 3, 8];
    await set('can_create_bots_group', administrators);
    try {
      const generic = await hamlet.post('/bots', { full_name: 'Policy Generic', short_name: `policyg${Date.now()}` });
      t.like(generic.body, { code: 'BAD_REQUEST', msg: 'Insufficient permission' });
      const incoming = await makeBot(t, hamlet, { bot_type: 2 });
      t.true(incoming.user_id > 0);
      await set('can_create_write_only_bots_group', nobody);
      const refused = await hamlet.post('/bots', {
        full_name: 'Policy Hook',
        short_name: `policyh${Date.now()}`,
        bot_type: 2,
      });
      t.like(refused.body, { code: 'BAD_REQUEST', msg: 'Insufficient permission' });
      t.truthy(await makeBot(t, iago, { bot_type: 1 }), 'administrators are in the group');
    } finally {
      await set('can_create_bots_group', members);
      await set('can_create_write_only_bots_group', members);
    }
  },
);

test('an avatar file is optional; two files are refused as the original refuses them', async (t) => {
  const { hamlet } = t.context;
  const picture = { name: 'avatar.png', type: 'image/png', data: Buffer.from('\x89PNG\r\n\x1a\n', 'latin1') };
  const one = await hamlet.upload('/bots', [picture], { full_name: 'Avatar Bot', short_name: `avatar${Date.now()}` });
  t.is(one.status, 200, JSON.stringify(one.body));
  const two = await hamlet.upload('/bots', [picture, { ...picture, field: 'second' }], {
    full_name: 'Two Avatars Bot',
    short_name: `avatars${Date.now()}`,
  });
  t.like(two.body, { code: 'BAD_REQUEST', msg: 'You may only upload one file at a time' });
});

test('an outgoing webhook bot has its service; an incoming webhook bot only sends messages', async (t) => {
  const { hamlet } = t.context;
  const url = 'http://127.0.0.1:9/hook';
  const outgoing = await makeBot(t, hamlet, { bot_type: 3, payload_url: JSON.stringify(url), interface_type: 2 });
  const bots = (await snapshotOf(hamlet, { fetch_event_types: JSON.stringify(['realm_bot']) })).realm_bots as Array<{
    user_id: number;
    bot_type: number;
    services: Array<{ base_url: string; interface: number; token: string }>;
  }>;
  const mine = bots.find((b) => b.user_id === outgoing.user_id)!;
  t.is(mine.bot_type, 3);
  t.like(mine.services[0], { base_url: url, interface: 2 });
  t.is(mine.services[0]!.token.length, 32);

  const incoming = await makeBot(t, hamlet, { bot_type: 2 });
  const sent = await incoming.client.post('/messages', {
    type: 'stream',
    to: 'Verona',
    topic: 'hooks',
    content: 'ping',
  });
  t.is(sent.status, 200, JSON.stringify(sent.body));
  const read = await incoming.client.get('/users/me');
  t.like(read.body, { code: 'BAD_REQUEST', msg: 'This API is not available to incoming webhook bots.' });
  const storage = await incoming.client.get('/bot_storage');
  t.is(storage.status, 400);
});

test('the owner or an administrator changes a bot; a new owner hears add, the old one delete', async (t) => {
  const { iago, hamlet, othello } = t.context;
  const bot = await makeBot(t, hamlet);
  const types = JSON.stringify(['realm_bot', 'realm_user']);
  const [hq, oq] = await Promise.all([
    register(hamlet, { event_types: types }),
    register(othello, { event_types: types }),
  ]);

  const refused = await othello.patch(`/bots/${bot.user_id}`, { full_name: 'Stolen Bot' });
  t.like(refused.body, { code: 'BAD_REQUEST', msg: 'Insufficient permission' });
  t.like((await hamlet.patch('/bots/9999', { full_name: 'Nobody Bot' })).body, { msg: 'No such bot' });
  t.like((await hamlet.patch(`/bots/${IDS.othello}`, { full_name: 'Nobody Bot' })).body, { msg: 'No such bot' });
  t.like((await hamlet.patch(`/bots/${bot.user_id}`, { role: 200 })).body, {
    msg: 'Must be an organization administrator',
  });

  const name = `Renamed ${bot.user_id}`;
  const renamed = await hamlet.patch(`/bots/${bot.user_id}`, { full_name: name });
  t.is(renamed.status, 200, JSON.stringify(renamed.body));
  t.like(renamed.body, { full_name: name, bot_owner: 'hamlet@zulip.com', service_interface: 1 });
  const update = await next(hq, (e) => e.type === 'realm_bot' && e.op === 'update' && aboutBot(bot.user_id)(e));
  t.deepEqual(update.bot, { user_id: bot.user_id, full_name: name });
  await next(oq, (e) => e.type === 'realm_user' && (e.person as { full_name?: string }).full_name === name);

  for (const [owner, msg] of [
    [9999, 'Failed to change owner, no such user'],
    [bot.user_id, "Failed to change owner, bots can't own other bots"],
  ] as const) {
    t.like((await iago.patch(`/bots/${bot.user_id}`, { bot_owner_id: owner })).body, { msg });
  }
  const moved = await iago.patch(`/bots/${bot.user_id}`, { bot_owner_id: IDS.othello });
  t.is(moved.status, 200, JSON.stringify(moved.body));
  const gone = await next(hq, (e) => e.type === 'realm_bot' && e.op === 'delete' && aboutBot(bot.user_id)(e));
  t.deepEqual(gone.bot, { user_id: bot.user_id });
  const got = await next(oq, (e) => e.type === 'realm_bot' && e.op === 'add' && aboutBot(bot.user_id)(e));
  t.like(got.bot, { owner_id: IDS.othello, api_key: bot.api_key });
  await next(
    oq,
    (e) => e.type === 'realm_user' && (e.person as { bot_owner_id?: number }).bot_owner_id === IDS.othello,
  );
  t.like((await hamlet.patch(`/bots/${bot.user_id}`, { full_name: 'Back Bot' })).body, {
    msg: 'Insufficient permission',
  });
  const theirs = await othello.get<{ bots: Array<{ username: string }> }>('/bots');
  t.true(theirs.body.bots.some((b) => b.username === bot.email));
});

test('a new key locks the old one out; deactivation locks the bot out and tells its administrators', async (t) => {
  const { hamlet, othello, iago } = t.context;
  const bot = await makeBot(t, hamlet);
  const queue = await register(hamlet, { event_types: JSON.stringify(['realm_bot']) });
  t.like((await othello.post(`/bots/${bot.user_id}/api_key/regenerate`)).body, { msg: 'Insufficient permission' });
  const fresh = await hamlet.post<{ api_key: string }>(`/bots/${bot.user_id}/api_key/regenerate`);
  t.is(fresh.status, 200);
  t.not(fresh.body.api_key, bot.api_key);
  t.is((await bot.client.get('/users/me')).status, 401);
  const renewed = t.context.server.client.as({ email: bot.email, apiKey: fresh.body.api_key });
  t.is((await renewed.get('/users/me')).status, 200);
  const keyEvent = await next(queue, (e) => aboutBot(bot.user_id)(e) && 'api_key' in (e.bot as object));
  t.deepEqual(keyEvent.bot, { user_id: bot.user_id, api_key: fresh.body.api_key });

  t.like((await othello.delete(`/bots/${bot.user_id}`)).body, { msg: 'Insufficient permission' });
  t.is((await hamlet.delete(`/bots/${bot.user_id}`)).status, 200);
  const off = await renewed.get('/users/me');
  t.is(off.status, 401);
  t.is(off.body.code, 'USER_DEACTIVATED');
  const deactivated = await next(queue, (e) => aboutBot(bot.user_id)(e) && 'is_active' in (e.bot as object));
  t.deepEqual(deactivated.bot, { user_id: bot.user_id, is_active: false });
  t.false(
    (await hamlet.get<{ bots: Array<{ username: string }> }>('/bots')).body.bots.some((b) => b.username === bot.email),
  );
  const all = (await snapshotOf(iago, { fetch_event_types: JSON.stringify(['realm_bot']) })).realm_bots as Array<{
    user_id: number;
    is_active: boolean;
  }>;
  t.like(
    all.find((b) => b.user_id === bot.user_id),
    { is_active: false },
  );
});

test("bot storage keeps string values, names missing keys, and holds the original's limit", async (t) => {
  const { hamlet } = t.context;
  const bot = await makeBot(t, hamlet);
  const storage = bot.client;
  t.deepEqual((await storage.get('/bot_storage')).body.storage, {});
  t.is((await storage.put('/bot_storage', { storage: JSON.stringify({ a: '1', b: 'two' }) })).status, 200);
  t.deepEqual((await storage.get('/bot_storage')).body.storage, { a: '1', b: 'two' });
  t.deepEqual((await storage.get('/bot_storage', { keys: JSON.stringify(['b']) })).body.storage, { b: 'two' });
  const missing = await storage.get('/bot_storage', { keys: JSON.stringify(['nope']) });
  t.like(missing.body, { code: 'BAD_REQUEST', msg: 'Key does not exist.' });
  t.like((await storage.delete('/bot_storage', { keys: JSON.stringify(['nope']) })).body, {
    msg: 'Key does not exist.',
  });
  t.is((await storage.delete('/bot_storage', { keys: JSON.stringify(['a']) })).status, 200);
  t.deepEqual((await storage.get('/bot_storage')).body.storage, { b: 'two' });
  const notString = await storage.put('/bot_storage', { storage: JSON.stringify({ c: 3 }) });
  t.is(notString.status, 400);
  // A request is at most 1 MiB here, so the limit is reached in steps: 9 of 1,000,002 characters, then a tenth.
  const million = 'x'.repeat(1_000_000);
  for (let i = 0; i < 9; i++) {
    const put = await storage.put('/bot_storage', { storage: JSON.stringify({ [`k${i}`]: million }) });
    t.is(put.status, 200, JSON.stringify(put.body));
  }
  const over = await storage.put('/bot_storage', { storage: JSON.stringify({ k9: million }) });
  t.like(over.body, {
    code: 'BAD_REQUEST',
    msg: 'Request exceeds storage limit by 24 characters. The limit is 10000000 characters.',
  });
  // Read by key: all of it at once is more than one message of the cluster's transport (1 MiB).
  const kept = await storage.get<{ storage: Record<string, string> }>('/bot_storage', { keys: JSON.stringify(['b']) });
  t.deepEqual(kept.body.storage, { b: 'two' });
  const k9 = await storage.get('/bot_storage', { keys: JSON.stringify(['k9']) });
  t.like(k9.body, { msg: 'Key does not exist.' });
  t.is((await storage.delete('/bot_storage')).status, 200);
  t.deepEqual((await storage.get('/bot_storage')).body.storage, {});
  // Another user's storage is their own.
  t.deepEqual((await hamlet.get('/bot_storage')).body.storage, {});
});

test("a bot's key opens no other bot: not its owner's bots, keys or storage", async (t) => {
  const { hamlet } = t.context;
  const first = await makeBot(t, hamlet);
  const second = await makeBot(t, hamlet);
  await second.client.put('/bot_storage', { storage: JSON.stringify({ secret: 'second' }) });
  const bots = (await snapshotOf(first.client, { fetch_event_types: JSON.stringify(['realm_bot']) })).realm_bots;
  t.deepEqual(bots, []);
  t.like((await first.client.get('/bots')).body, { msg: 'This endpoint does not accept bot requests.' });
  const rekey = await first.client.post(`/bots/${second.user_id}/api_key/regenerate`);
  t.like(rekey.body, { msg: 'This endpoint does not accept bot requests.' });
  t.like((await first.client.delete(`/bots/${second.user_id}`)).body, { msg: 'Insufficient permission' });
  t.deepEqual((await first.client.get('/bot_storage')).body.storage, {});
  t.is((await second.client.get('/users/me')).status, 200);
});
