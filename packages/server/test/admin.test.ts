import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { promisify } from 'node:util';
import test from 'ava';
import { ChatClient, ServerProcess } from '@chat/testkit';
import { MAIN, tempDir } from './support.js';

const run = promisify(execFile);

test('the admin command line creates a realm, users and new API keys', async (t) => {
  const dir = await tempDir('admin');
  const env = { ...process.env, DATA_DIR: dir, CHAT_MODE: 'production', DEFAULT_REALM: 'acme', LOG_LEVEL: 'warn' };
  const admin = async (...args: string[]) => JSON.parse((await run('node', [MAIN, ...args], { env })).stdout);
  const server = new ServerProcess(['node', MAIN, 'start'], { ...env, PORT: '0' });
  t.teardown(async () => {
    await server.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });

  const owner = await admin(
    'create-realm',
    ...['--realm', 'acme', '--realm-name', 'Acme', '--email', 'boss@acme.test', '--name', 'Boss', '--password', 'pw'],
  );
  t.like(owner, { email: 'boss@acme.test', user_id: 1 });
  const bot = await admin('create-user', '--realm', 'acme', '--email', 'bot@acme.test', '--name', 'Bot', '--bot');
  t.is(bot.api_key.length, 32);
  const usage = await t.throwsAsync(
    admin('create-user', '--realm', 'acme', '--email', 'x@acme.test', '--name', 'X', '--role', 'king'),
  );
  t.regex(String((usage as { stderr?: string }).stderr), /--role must be one of/);

  let client = new ChatClient(await server.start());
  const grant = await client.post<{ api_key: string }>('/fetch_api_key', {
    username: 'boss@acme.test',
    password: 'pw',
  });
  t.is(grant.body.api_key, owner.api_key);
  const me = await client.as({ email: 'boss@acme.test', apiKey: owner.api_key }).get('/users/me');
  t.like(me.body, { full_name: 'Boss', role: 100, is_owner: true });
  const botMe = await client.as({ email: 'bot@acme.test', apiKey: bot.api_key }).get('/users/me');
  t.like(botMe.body, { is_bot: true });
  const botUser = await client.as({ email: 'bot@acme.test', apiKey: bot.api_key }).get(`/users/${bot.user_id}`);
  t.like(botUser.body, { user: { bot_type: 1 } });
  // A realm made this way has no public access: registering needs credentials.
  const spectator = await client.post('/register', {});
  t.is(spectator.status, 401);
  t.is(spectator.body.code, 'UNAUTHORIZED');

  await server.kill('SIGTERM');
  const reset = await admin('reset-api-key', '--realm', 'acme', '--email', 'boss@acme.test');
  t.not(reset.api_key, owner.api_key);
  client = new ChatClient(await server.start());
  const old = await client.as({ email: 'boss@acme.test', apiKey: owner.api_key }).get('/users/me');
  t.is(old.status, 401);
  const fresh = await client.as({ email: 'boss@acme.test', apiKey: reset.api_key }).get('/users/me');
  t.is(fresh.status, 200);
});
