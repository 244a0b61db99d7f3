import { assertResponse, type ChatClient } from '@chat/testkit';
import { withServer, type Logins } from './context.js';
import { linkIn, mailsTo, openPage, type Body } from './invite-support.js';
import { newAccount } from './people.js';
import { register, take } from './queues.js';

/**
 * `PATCH /settings` with `email`: a link goes to the new address and the
 * address changes only when it is opened; then everyone hears of it.
 */
const test = withServer(['iago']);

const PASSWORD = 'long enough';

/** A fresh account of its own per test, since changing an address changes how it logs in. */
const account = (t: { context: Logins<'iago'> }, email: string) => newAccount(t.context, email, PASSWORD, email);

async function changeEmail(client: ChatClient, email: string) {
  const reply = await client.patch('/settings', { email });
  // The reference documents only the success of this operation.
  if (reply.status === 200) assertResponse('PATCH', '/settings', 200, reply.body);
  return reply;
}

test('the address changes only when the mailed link is opened', async (t) => {
  const { server, iago } = t.context;
  const me = await account(t, 'before@example.com');
  const watcher = await register(iago, { event_types: ['realm_user'] });

  const started = await changeEmail(me.client, 'after@example.com');
  t.is(started.status, 200);
  t.like((await me.client.get('/users/me')).body, { email: 'before@example.com' });
  t.is((await mailsTo(server, 'before@example.com')).length, 0);
  const link = linkIn((await mailsTo(server, 'after@example.com'))[0], '/accounts/confirm_new_email/');

  const page = await openPage(link);
  t.is(page.status, 200);
  t.true(page.html.includes('after@example.com'));
  const mine = (e: Body) => e.type === 'realm_user' && (e.person as Body).user_id === me.user_id;
  const first = await take(watcher, mine);
  const second = await take(watcher, mine);
  t.like(first, { op: 'update' });
  t.like(second, { op: 'update' });
  t.deepEqual(
    [first.person, second.person],
    [
      { user_id: me.user_id, delivery_email: 'after@example.com' },
      { user_id: me.user_id, new_email: 'after@example.com' },
    ],
  );

  // The API key stays; the address that goes with it is the new one.
  t.is((await me.client.get('/users/me')).status, 401);
  const renamed = server.client.as({ email: 'after@example.com', apiKey: me.apiKey });
  t.like((await renamed.get('/users/me')).body, { email: 'after@example.com', delivery_email: 'after@example.com' });
  const login = await server.client.post('/fetch_api_key', { username: 'after@example.com', password: PASSWORD });
  t.is(login.status, 200);
  t.is(
    (await server.client.post('/fetch_api_key', { username: 'before@example.com', password: PASSWORD })).status,
    401,
  );
  const notice = await mailsTo(server, 'before@example.com');
  t.is(notice.length, 1);
  t.true(notice[0]!.text.includes('after@example.com'));
  t.is((await openPage(link)).status, 404);
});

test('invalid and taken addresses are refused, and nothing is mailed', async (t) => {
  const { server } = t.context;
  const me = await account(t, 'refused@example.com');
  const cases: Array<[string, string]> = [
    ['not-an-address', 'Invalid address.'],
    ['two@example.com, three@example.com', 'Invalid address.'],
    ['hamlet@zulip.com', 'Already has an account.'],
    ['HAMLET@zulip.com', 'Already has an account.'],
  ];
  for (const [email, msg] of cases) {
    const reply = await changeEmail(me.client, email);
    t.is(reply.status, 400, email);
    t.like(reply.body, { result: 'error', code: 'BAD_REQUEST', msg });
  }
  t.is((await mailsTo(server, 'hamlet@zulip.com')).length, 0);
  t.like((await me.client.get('/users/me')).body, { email: 'refused@example.com' });
});

test('a newer request retires the older link, and the same address starts nothing', async (t) => {
  const { server } = t.context;
  const me = await account(t, 'twice@example.com');
  t.is((await changeEmail(me.client, 'first@example.com')).status, 200);
  t.is((await changeEmail(me.client, 'second@example.com')).status, 200);
  const first = linkIn((await mailsTo(server, 'first@example.com'))[0], '/accounts/confirm_new_email/');
  const second = linkIn((await mailsTo(server, 'second@example.com'))[0], '/accounts/confirm_new_email/');
  t.is((await openPage(first)).status, 404);
  t.is((await openPage(second)).status, 200);
  const moved = server.client.as({ email: 'second@example.com', apiKey: me.apiKey });
  t.is((await changeEmail(moved, 'second@example.com')).status, 200);
  t.is((await mailsTo(server, 'second@example.com')).length, 1);
});

test('an address taken before the link is opened stays with its new owner', async (t) => {
  const { server, iago } = t.context;
  const me = await account(t, 'slow@example.com');
  t.is((await changeEmail(me.client, 'contested@example.com')).status, 200);
  const link = linkIn((await mailsTo(server, 'contested@example.com'))[0], '/accounts/confirm_new_email/');
  const other = await iago.post('/users', { email: 'contested@example.com', password: PASSWORD, full_name: 'Fast' });
  t.is(other.status, 200);
  const page = await openPage(link);
  t.is(page.status, 400);
  t.regex(page.html, /Already has an account/);
  t.like((await me.client.get('/users/me')).body, { email: 'slow@example.com' });
});
