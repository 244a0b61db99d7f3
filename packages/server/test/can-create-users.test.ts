import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { promisify } from 'node:util';
import test from 'ava';
import { assertResponse, ChatClient, ServerProcess } from '@chat/testkit';
import { next, register } from './queues.js';
import { refusal } from './replies.js';
import { MAIN, tempDir } from './support.js';

const run = promisify(execFile);

/**
 * POST /users takes administrator rights and the `can_create_users`
 * permission, which only the operator grants: `change-user-role ...
 * --role can_create_users [--revoke]`, the original's `manage.py
 * change_user_role`, run here on the stopped server's data folder.
 */
test('the operator grants and revokes can_create_users; POST /users follows it', async (t) => {
  const dir = await tempDir('can-create-users');
  const env = { ...process.env, DATA_DIR: dir, CHAT_MODE: 'development', LOG_LEVEL: 'warn' };
  const admin = async (...args: string[]) => JSON.parse((await run('node', [MAIN, ...args], { env })).stdout);
  const grant = (role: string, email = 'desdemona@zulip.com', ...more: string[]) =>
    admin('change-user-role', '--realm', 'zulip', '--email', email, '--role', role, ...more);
  const role = (...more: string[]) => grant('can_create_users', undefined, ...more);
  const server = new ServerProcess(['node', MAIN, 'start'], { ...env, PORT: '0' });
  t.teardown(async () => {
    await server.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });

  // Each start listens on a new port; the API keys stay.
  let anonymous = new ChatClient(await server.start());
  const keys = new Map<string, string>();
  for (const email of ['desdemona@zulip.com', 'hamlet@zulip.com']) {
    const grant = await anonymous.post<{ api_key: string }>('/dev_fetch_api_key', { username: email });
    keys.set(email, grant.body.api_key);
  }
  const as = (email: string) => anonymous.as({ email, apiKey: keys.get(email)! });
  let [desdemona, hamlet] = [as('desdemona@zulip.com'), as('hamlet@zulip.com')];
  const restart = async () => {
    anonymous = new ChatClient(await server.start());
    [desdemona, hamlet] = [as('desdemona@zulip.com'), as('hamlet@zulip.com')];
  };
  const create = (client: ChatClient, name: string) =>
    client.post<{ user_id: number }>('/users', { email: `${name}@zulip.com`, password: 'pw 1', full_name: name });
  const notAuthorized = {
    status: 400,
    result: 'error',
    code: 'BAD_REQUEST',
    msg: 'User not authorized to create users',
  };

  // The owner is an administrator but does not hold the permission; a member is refused as a non-administrator.
  const before = await create(desdemona, 'early');
  t.deepEqual(await refusal(before), notAuthorized);
  assertResponse('POST', '/users', 400, before.body);
  t.deepEqual(await refusal(create(hamlet, 'member-made')), {
    status: 400,
    result: 'error',
    code: 'UNAUTHORIZED_PRINCIPAL',
    msg: 'Must be an organization administrator',
  });
  // The permission is not part of the user's JSON, as in the original.
  t.false('can_create_users' in (await desdemona.get('/users/me')).body);

  await server.kill('SIGTERM');
  t.like(await role(), { email: 'desdemona@zulip.com', user_id: 9, can_create_users: true, changed: true });
  t.like(await role(), { can_create_users: true, changed: false }, 'granting again changes nothing');
  const emails = (...more: string[]) => grant('can_change_user_emails', undefined, ...more);
  t.like(await emails(), { can_create_users: true, can_change_user_emails: true, changed: true });
  const usage = await t.throwsAsync(grant('administrator'));
  t.regex(String((usage as { stderr?: string }).stderr), /--role must be can_create_users/);
  const unknown = await t.throwsAsync(grant('can_create_users', 'nobody@zulip.com'));
  t.regex(String((unknown as { stderr?: string }).stderr), /No user with email 'nobody@zulip.com'/);

  await restart();
  const watcher = await register(hamlet, { event_types: JSON.stringify(['realm_user']) });
  const made = await create(desdemona, 'granted');
  t.is(made.status, 200, JSON.stringify(made.body));
  assertResponse('POST', '/users', 200, made.body);
  const id = made.body.user_id;
  // Everyone hears of the new account (the event is checked against the reference by the poll)...
  const added = await next(watcher, (e) => e.type === 'realm_user' && e.op === 'add');
  t.like(added, { person: { user_id: id, email: 'granted@zulip.com', full_name: 'granted' } });
  // ...which exists and logs in with its password.
  t.like((await hamlet.get(`/users/${id}`)).body, { user: { user_id: id, full_name: 'granted', role: 400 } });
  const key = await anonymous.post('/fetch_api_key', { username: 'granted@zulip.com', password: 'pw 1' });
  t.like(key, { status: 200, body: { user_id: id } });
  // can_change_user_emails, granted the same way, opens new_email of PATCH /users/{id}.
  const moved = await desdemona.patch(`/users/${id}`, { new_email: 'moved@zulip.com' });
  t.is(moved.status, 200, JSON.stringify(moved.body));
  t.like((await hamlet.get(`/users/${id}`)).body, { user: { email: 'moved@zulip.com' } });

  await server.kill('SIGTERM');
  t.like(await role('--revoke'), { user_id: 9, can_create_users: false, changed: true });
  t.like(await emails('--revoke'), { can_create_users: false, can_change_user_emails: false, changed: true });
  await restart();
  t.deepEqual(await refusal(desdemona.patch(`/users/${id}`, { new_email: 'again@zulip.com' })), {
    status: 400,
    result: 'error',
    code: 'BAD_REQUEST',
    msg: 'User not authorized to change user emails',
  });
  t.deepEqual(await refusal(create(desdemona, 'late')), notAuthorized);
  const listed = ((await hamlet.get<{ members: Array<{ email: string }> }>('/users')).body.members ?? []).map(
    (m) => m.email,
  );
  t.false(listed.includes('late@zulip.com'));
  t.true(listed.includes('moved@zulip.com'));
});
