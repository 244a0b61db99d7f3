import { withServer } from './context.js';
import { newPerson } from './people.js';
import { next, register, type Event } from './queues.js';
import { bodyOf, refusal, succeeds } from './replies.js';

/**
 * PATCH /settings for what the realm keeps of an account: name, time zone,
 * password. Users are read back through the user operations, whose bodies
 * (another issue's) are not checked here.
 */
const test = withServer(['iago', 'hamlet'], { heartbeatMs: 400 });

const personUpdate = (userId: number, field: string) => (e: Event) =>
  e.type === 'realm_user' &&
  e.op === 'update' &&
  (e.person as Record<string, unknown>).user_id === userId &&
  field in (e.person as Record<string, unknown>);

test('full_name changes the name everyone sees, with a realm_user update to others', async (t) => {
  const { client, user_id } = await newPerson(t.context, 'Old Name');
  const watcher = await register(t.context.hamlet, { event_types: ['realm_user'] });
  await succeeds('PATCH', '/settings', client.patch('/settings', { full_name: '  New Name  ' }));
  const event = await next(watcher, personUpdate(user_id, 'full_name'));
  t.deepEqual(event.person, { user_id, full_name: 'New Name' });
  const shown = await bodyOf<{ user: { full_name: string } }>(t.context.hamlet.get(`/users/${user_id}`));
  t.is(shown.user.full_name, 'New Name');
});

test('a bad full name is refused in the original words', async (t) => {
  const { client } = await newPerson(t.context, 'Careful Namer');
  for (const [full_name, msg] of [
    ['x', 'Name too short!'],
    ['y'.repeat(101), 'Name too long!'],
    ['Bold *name*', 'Invalid characters in name!'],
    ['Someone|15', 'Invalid format!'],
  ]) {
    t.deepEqual(await refusal(client.patch('/settings', { full_name })), {
      status: 400,
      result: 'error',
      code: 'BAD_REQUEST',
      msg,
    });
  }
  const me = await bodyOf<{ full_name: string }>(client.get('/users/me'));
  t.is(me.full_name, 'Careful Namer');
});

test('timezone is kept on the account: others hear realm_user, the user hears user_settings', async (t) => {
  const { client, user_id, email } = await newPerson(t.context, 'Traveller');
  const watcher = await register(t.context.hamlet, { event_types: ['realm_user'] });
  const own = await register(client, { client_capabilities: { user_settings_object: true } });
  const legacy = await register(client, { event_types: ['update_display_settings'] });
  await succeeds('PATCH', '/settings', client.patch('/settings', { timezone: 'Asia/Kolkata' }));
  const event = await next(watcher, personUpdate(user_id, 'timezone'));
  t.deepEqual(event.person, { user_id, email, timezone: 'Asia/Kolkata' });
  const setting = await next(own, (e) => e.type === 'user_settings' && e.property === 'timezone');
  t.is(setting.value, 'Asia/Kolkata');
  const old = await next(legacy, (e) => e.type === 'update_display_settings');
  t.like(old, { setting_name: 'timezone', setting: 'Asia/Kolkata', user: email });
  t.is((await bodyOf<{ timezone: string }>(client.get('/users/me'))).timezone, 'Asia/Kolkata');
  const snapshot = await register(client, { fetch_event_types: ['user_settings'] });
  t.is((snapshot.snapshot.user_settings as { timezone: string }).timezone, 'Asia/Kolkata');
});

test('a new password needs the old one; afterwards only the new one fetches the API key', async (t) => {
  const { server } = t.context;
  const { client, email, password } = await newPerson(t.context, 'Password Changer');
  const fresh = `fresh-${Date.now()}`;
  t.like(await refusal(client.patch('/settings', { new_password: fresh })), { status: 400, code: 'BAD_REQUEST' });
  t.deepEqual(await refusal(client.patch('/settings', { old_password: 'not it', new_password: fresh })), {
    status: 400,
    result: 'error',
    code: 'BAD_REQUEST',
    msg: 'Wrong password!',
  });
  t.deepEqual(await refusal(client.patch('/settings', { old_password: password, new_password: 'abc' })), {
    status: 400,
    result: 'error',
    code: 'BAD_REQUEST',
    msg: 'New password is too weak!',
  });
  // None of the refused attempts changed the password.
  await succeeds('POST', '/fetch_api_key', server.client.post('/fetch_api_key', { username: email, password }));
  await succeeds('PATCH', '/settings', client.patch('/settings', { old_password: password, new_password: fresh }));
  const key = await succeeds<{ email: string }>(
    'POST',
    '/fetch_api_key',
    server.client.post('/fetch_api_key', { username: email, password: fresh }),
  );
  t.is(key.email, email);
  const old = await refusal(server.client.post('/fetch_api_key', { username: email, password }));
  t.like(old, { status: 401, code: 'AUTHENTICATION_FAILED' });
});

test('an account without a password cannot set one through old_password', async (t) => {
  // The development users have no password.
  const got = await refusal(t.context.hamlet.patch('/settings', { old_password: '', new_password: 'whatever-123' }));
  t.deepEqual(got, { status: 400, result: 'error', code: 'BAD_REQUEST', msg: 'Wrong password!' });
});
