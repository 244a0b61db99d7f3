import type { ChatClient } from '@chat/testkit';
import { withServer } from './context.js';
import { newPerson } from './people.js';
import { next, register, type Body } from './queues.js';
import { refusal, succeeds } from './replies.js';

/** POST /users/me/status and GET /users/{user_id}/status, the user_status event and register section. */
const test = withServer(['iago', 'hamlet'], { heartbeatMs: 400 });

const setStatus = (client: ChatClient, params: Body) =>
  succeeds('POST', '/users/me/status', client.post('/users/me/status', params));
const statusOf = async (reader: ChatClient, userId: number) =>
  (await succeeds<{ status: Body }>('GET', `/users/${userId}/status`, reader.get(`/users/${userId}/status`))).status;
const statusSnapshot = async (reader: ChatClient) =>
  (await register(reader, { fetch_event_types: ['user_status'] })).snapshot.user_status as Record<string, Body>;

test('a status set with an emoji name is read back by others, in the register snapshot and an event', async (t) => {
  const { hamlet } = t.context;
  const { client, user_id } = await newPerson(t.context, 'Vacationer');
  const watcher = await register(hamlet, { event_types: ['user_status'] });
  await setStatus(client, { status_text: '  on vacation ', emoji_name: 'car' });
  // The code is the one the reference's own example gives for "car".
  const expected = {
    status_text: 'on vacation',
    emoji_name: 'car',
    emoji_code: '1f697',
    reaction_type: 'unicode_emoji',
  };
  t.deepEqual(await statusOf(hamlet, user_id), expected);
  t.deepEqual((await statusSnapshot(hamlet))[user_id], expected);
  const event = await next(watcher, (e) => e.type === 'user_status' && e.user_id === user_id);
  t.like(event, expected);
});

test('only the parts passed change; empty values clear them and a cleared status disappears', async (t) => {
  const { hamlet } = t.context;
  const { client, user_id } = await newPerson(t.context, 'Partial Changer');
  t.false(String(user_id) in (await statusSnapshot(hamlet)));
  t.deepEqual(await statusOf(hamlet, user_id), {});
  await setStatus(client, { status_text: 'in a meeting' });
  await setStatus(client, { emoji_name: 'calendar', emoji_code: '1f4c5', reaction_type: 'unicode_emoji' });
  t.like(await statusOf(hamlet, user_id), { status_text: 'in a meeting', emoji_name: 'calendar' });
  await setStatus(client, { emoji_name: '' });
  t.deepEqual(await statusOf(hamlet, user_id), { status_text: 'in a meeting' });
  await setStatus(client, { status_text: '' });
  t.deepEqual(await statusOf(hamlet, user_id), {});
  t.false(String(user_id) in (await statusSnapshot(hamlet)));
});

test('the extra emoji of the service is accepted by name', async (t) => {
  const { client, user_id } = await newPerson(t.context, 'Zulip Fan');
  await setStatus(client, { emoji_name: 'zulip' });
  t.deepEqual(await statusOf(t.context.hamlet, user_id), {
    emoji_name: 'zulip',
    emoji_code: 'zulip',
    reaction_type: 'zulip_extra_emoji',
  });
});

test('away is the inverse of presence_enabled, both ways', async (t) => {
  const { hamlet } = t.context;
  const { client, user_id } = await newPerson(t.context, 'Away Person');
  const watcher = await register(hamlet, { event_types: ['user_status'] });
  await setStatus(client, { away: true });
  t.deepEqual(await statusOf(hamlet, user_id), { away: true });
  t.like(await next(watcher, (e) => e.type === 'user_status' && e.user_id === user_id), { away: true });
  const own = await register(client, { fetch_event_types: ['user_settings'] });
  t.is((own.snapshot.user_settings as Body).presence_enabled, false);
  await succeeds('PATCH', '/settings', client.patch('/settings', { presence_enabled: true }));
  t.deepEqual(await statusOf(hamlet, user_id), {});
});

const bad = (msg: string) => ({ status: 400, result: 'error', code: 'BAD_REQUEST', msg });

test('every refusal of the reference, with its code and message', async (t) => {
  const { client, user_id } = await newPerson(t.context, 'Refused');
  const cases: Array<[Body, string]> = [
    [{}, 'Client did not pass any new values.'],
    [{ status_text: 'x'.repeat(61) }, 'status_text is too long (limit: 60 characters)'],
    [
      { status_text: 'busy', emoji_code: '1f697' },
      'Client must pass emoji_name if they pass either emoji_code or reaction_type.',
    ],
    [
      { status_text: 'busy', reaction_type: 'unicode_emoji' },
      'Client must pass emoji_name if they pass either emoji_code or reaction_type.',
    ],
    [{ emoji_name: 'invalid' }, "Emoji 'invalid' does not exist"],
    [{ emoji_name: 'car', emoji_code: '1f600', reaction_type: 'unicode_emoji' }, 'Invalid emoji name.'],
    [{ emoji_name: 'car', emoji_code: '1', reaction_type: 'realm_emoji' }, 'Invalid custom emoji.'],
  ];
  for (const [params, msg] of cases) {
    const reply = client.post('/users/me/status', params);
    t.deepEqual(await refusal(reply), bad(msg), JSON.stringify(params));
  }
  // 60 characters are fine, and nothing refused above was stored.
  t.deepEqual(await statusOf(t.context.hamlet, user_id), {});
  await setStatus(client, { status_text: 'y'.repeat(60) });
  t.is((await statusOf(t.context.hamlet, user_id)).status_text, 'y'.repeat(60));
});

test("an unknown user's status is BAD_REQUEST", async (t) => {
  t.deepEqual(await refusal(t.context.hamlet.get('/users/999999/status')), bad('No such user'));
});
