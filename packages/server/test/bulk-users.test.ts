import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { promisify } from 'node:util';
import test from 'ava';
import { assertResponse, checkEvent, ChatClient, ServerProcess } from '@chat/testkit';
import { poll, register, type Body, type Queue } from './queues.js';
import { MAIN, tempDir } from './support.js';

const run = promisify(execFile);

interface Grant {
  api_key: string;
  email: string;
  user_id: number;
}

/** A development server as its own process over a folder the admin command line can open while it is stopped. */
async function devServer(t: { teardown(fn: () => Promise<void>): void }) {
  const dir = await tempDir('bulk-users');
  const env = { ...process.env, DATA_DIR: dir, CHAT_MODE: 'development', LOG_LEVEL: 'warn', RATE_LIMITING: 'false' };
  const server = new ServerProcess(['node', MAIN, 'start'], { ...env, PORT: '0' });
  t.teardown(async () => {
    await server.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });
  const admin = async (...args: string[]) => {
    const { stdout } = await run('node', [MAIN, ...args], { env, maxBuffer: 64 << 20 });
    return JSON.parse(stdout) as Grant[];
  };
  const login = async (client: ChatClient, email: string) => {
    const reply = await client.post<{ api_key: string }>('/dev_fetch_api_key', { username: email });
    return client.as({ email, apiKey: reply.body.api_key });
  };
  return { server, admin, login };
}

const failure = (err: unknown) => String((err as { stderr?: string } | undefined)?.stderr);

/** Polls until `count` realm_user add events have come, each checked against the reference. */
async function usersAdded(queue: Queue, count: number): Promise<Body[]> {
  const added = () => queue.seen.filter((e) => e.type === 'realm_user' && e.op === 'add');
  while (added().length < count) await poll(queue);
  return added().map((event) => {
    if (!checkEvent(event).ok) throw new Error(`bad realm_user event: ${checkEvent(event).errors.join('; ')}`);
    return event.person as Body;
  });
}

test('create-users makes real accounts without passwords, in one go, next to POST /users', async (t) => {
  t.timeout(240_000);
  const { server, admin, login } = await devServer(t);
  let client = new ChatClient(await server.start(60_000));
  const watcher = await register(await login(client, 'hamlet@zulip.com'), { event_types: ['realm_user'] });
  const before = await (await login(client, 'iago@zulip.com')).get<{ members: Body[] }>('/users');
  await server.stop();

  const args = ['create-users', '--realm', 'zulip', '--email', 'bulk-{n}@example.com', '--name', 'Bulk {n}'];
  const grants = await admin(...args, '--count', '3', '--start', '1');
  t.deepEqual(
    grants.map((g) => g.email),
    ['bulk-1@example.com', 'bulk-2@example.com', 'bulk-3@example.com'],
  );
  t.is(new Set(grants.map((g) => g.user_id)).size, 3);
  // All or none: a batch naming an address in use creates nobody, not even the new bulk-4.
  const taken = await t.throwsAsync(admin(...args, '--count', '2', '--start', '3'));
  t.regex(failure(taken), /Email 'bulk-3@example.com' already in use/);
  const none = await t.throwsAsync(admin(...args, '--count', '0'));
  t.regex(failure(none), /--count must be a positive integer/);
  const same = await t.throwsAsync(
    admin('create-users', '--realm', 'zulip', '--email', 'one@example.com', '--name', 'One', '--count', '2'),
  );
  t.regex(failure(same), /--email needs '\{n\}'/);

  client = new ChatClient(await server.start(60_000));
  const iago = await login(client, 'iago@zulip.com');
  for (const grant of grants) {
    const me = await client.as({ email: grant.email, apiKey: grant.api_key }).get<Body>('/users/me');
    t.is(me.status, 200);
    assertResponse('GET', '/users/me', 200, me.body);
    t.like(me.body, { user_id: grant.user_id, email: grant.email, role: 400, is_bot: false });
    // API key only, as after an external login: no password opens the account.
    const password = await client.post('/fetch_api_key', { username: grant.email, password: 'bench' });
    t.is(password.status, 401);
    t.is(password.body.code, 'AUTHENTICATION_FAILED');
  }
  const after = await iago.get<{ members: Body[] }>('/users');
  assertResponse('GET', '/users', 200, after.body);
  t.is(after.body.members.length, before.body.members.length + 3);
  for (const grant of grants) {
    const member = after.body.members.find((m) => m.user_id === grant.user_id);
    t.like(member, {
      email: grant.email,
      full_name: grant.email.replace(/^bulk-(\d+)@.*/, 'Bulk $1'),
      is_active: true,
    });
  }
  t.false(after.body.members.some((m) => m.email === 'bulk-4@example.com'));

  // Everyone who was there heard of each new account, as with POST /users.
  const queue = { ...watcher, client: await login(client, 'hamlet@zulip.com') };
  const people = await usersAdded(queue, 3);
  t.deepEqual(
    people.map((p) => [p.user_id, p.email, p.role]),
    grants.map((g) => [g.user_id, g.email, 400]),
  );

  // POST /users is unchanged: a password, the next id, the same refusals.
  const made = await iago.post<{ user_id: number }>('/users', {
    email: 'hashed@example.com',
    password: 'a real password',
    full_name: 'Hashed',
  });
  t.is(made.status, 200);
  assertResponse('POST', '/users', 200, made.body);
  t.true(made.body.user_id > Math.max(...grants.map((g) => g.user_id)));
  const key = await client.post<{ user_id: number }>('/fetch_api_key', {
    username: 'hashed@example.com',
    password: 'a real password',
  });
  t.is(key.status, 200);
  t.is(key.body.user_id, made.body.user_id);
  t.is((await usersAdded(queue, 4))[3]!.user_id, made.body.user_id);
  const duplicate = await iago.post('/users', { email: 'BULK-2@example.com', password: 'x', full_name: 'Again' });
  t.is(duplicate.status, 400);
  t.like(duplicate.body, { code: 'BAD_REQUEST', msg: "Email 'BULK-2@example.com' already in use" });
  const byMember = await (
    await login(client, 'bulk-1@example.com')
  ).post('/users', {
    email: 'other@example.com',
    password: 'x',
    full_name: 'Other',
  });
  t.is(byMember.status, 400);
  t.like(byMember.body, { code: 'UNAUTHORIZED_PRINCIPAL', msg: 'Must be an organization administrator' });
});
