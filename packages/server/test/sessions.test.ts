import type { ChatClient } from '@chat/testkit';
import { withServer } from './context.js';
import { Browser } from './browser.js';
import { newPerson } from './people.js';
import { onCluster } from './cluster-target.js';
import { TestServer } from './support.js';

/**
 * Browser sessions: the original's logins set `sessionid` and `csrftoken`,
 * every operation answers under /json for the session, writes need the
 * CSRF token, and a session ends on logout, a new password or a
 * deactivation. In a cluster the browser's requests alternate edges.
 */
const test = withServer(['iago']);

const TWO_WEEKS = 1_209_600;
const browser = (t: { context: { server: { client: ChatClient } } }) => new Browser(t.context.server.client);

test('password login sets HttpOnly session and readable CSRF cookies; /json answers for the session', async (t) => {
  const person = await newPerson(t.context, 'Session Person');
  const b = browser(t);
  const page = await b.send('GET', '/accounts/login/');
  t.is(page.status, 200);
  const csrfSet = b.setCookies.find((c) => c.startsWith('csrftoken='))!;
  t.regex(csrfSet, /Path=\//);
  t.regex(csrfSet, /SameSite=Lax/);
  t.notRegex(csrfSet, /HttpOnly/);
  t.notRegex(csrfSet, /Secure/, 'plain http: no Secure');
  t.is((await b.json('GET', '/users/me')).status, 401);

  const noToken = await b.send('POST', '/accounts/login/', { username: person.email, password: person.password });
  t.is(noToken.status, 403);
  t.regex(noToken.text, /CSRF verification failed/);
  const wrong = await b.send('POST', '/accounts/login/', {
    username: person.email,
    password: 'not it',
    csrfmiddlewaretoken: Browser.formToken(page.text),
  });
  t.is(wrong.status, 200);
  t.false(b.cookies.has('sessionid'));
  const before = b.cookies.get('csrftoken');

  const done = await b.logIn(person.email, person.password);
  t.is(done.status, 302);
  t.is(done.headers.get('location'), '/');
  const sessionSet = b.setCookies.find((c) => c.startsWith('sessionid='))!;
  t.regex(sessionSet, /HttpOnly/);
  t.regex(sessionSet, /SameSite=Lax/);
  t.regex(sessionSet, new RegExp(`Max-Age=${TWO_WEEKS}`));
  t.not(b.cookies.get('csrftoken'), before, 'the CSRF secret is rotated at login');

  const me = await b.json('GET', '/users/me');
  t.is(me.status, 200, JSON.stringify(me.body));
  t.is(me.body.user_id, person.user_id);
  // The API key still works under /json, without CSRF, as in the original.
  const byKey = await person.client.get('//json/users/me');
  t.is(byKey.status, 200);
});

test("a session's write needs the CSRF token of its cookie, refused in the original's words", async (t) => {
  const person = await newPerson(t.context, 'Csrf Person');
  const b = browser(t);
  t.is((await b.logIn(person.email, person.password)).status, 302);
  const status = { status_text: 'in a session' };
  const missing = await b.json('POST', '/users/me/status', status, null);
  t.is(missing.status, 403);
  t.deepEqual(missing.body, {
    result: 'error',
    msg: 'CSRF error: CSRF token missing.',
    code: 'CSRF_FAILED',
    reason: 'CSRF token missing.',
  });
  const wrong = await b.json('POST', '/users/me/status', status, 'x'.repeat(32));
  t.like(wrong.body, {
    code: 'CSRF_FAILED',
    msg: "CSRF error: CSRF token from the 'X-Csrftoken' HTTP header incorrect.",
  });
  const short = await b.json('POST', '/users/me/status', status, 'abc');
  t.like(short.body, { msg: "CSRF error: CSRF token from the 'X-Csrftoken' HTTP header has incorrect length." });
  const ok = await b.json('POST', '/users/me/status', status);
  t.is(ok.status, 200, JSON.stringify(ok.body));
  const mine = await person.client.get<{ status: { status_text?: string } }>(`/users/${person.user_id}/status`);
  t.is(mine.body.status.status_text, 'in a session');
});

test('logout ends the session; so do a new password and a deactivation', async (t) => {
  const { iago } = t.context;
  const person = await newPerson(t.context, 'Ending Person');
  const b = browser(t);
  await b.logIn(person.email, person.password);
  const stolen = new Map(b.cookies);
  const page = await b.send('GET', '/accounts/login/');
  const out = await b.send('POST', '/accounts/logout/', { csrfmiddlewaretoken: Browser.formToken(page.text) });
  t.is(out.status, 302);
  t.false(b.cookies.has('sessionid'));
  t.is((await b.json('GET', '/users/me')).status, 401);
  // The old cookie, kept by someone else, opens nothing either.
  const thief = browser(t);
  for (const [k, v] of stolen) thief.cookies.set(k, v);
  t.is((await thief.json('GET', '/users/me')).status, 401);

  await b.logIn(person.email, person.password);
  t.is((await b.json('GET', '/users/me')).status, 200);
  const changed = await person.client.patch('/settings', {
    old_password: person.password,
    new_password: 'a new password 1',
  });
  t.is(changed.status, 200, JSON.stringify(changed.body));
  t.is((await b.json('GET', '/users/me')).status, 401);

  await b.logIn(person.email, 'a new password 1');
  t.is((await b.json('GET', '/users/me')).status, 200);
  t.is((await iago.delete(`/users/${person.user_id}`)).status, 200);
  t.is((await b.json('GET', '/users/me')).status, 401);
});

test('development logins start sessions: dev_fetch_api_key and the /devlogin/ page', async (t) => {
  const b = browser(t);
  const reply = await b.send('POST', '/api/v1/dev_fetch_api_key', { username: 'hamlet@zulip.com' });
  const grant = JSON.parse(reply.text) as Record<string, unknown>;
  t.like(grant, { result: 'success', email: 'hamlet@zulip.com', user_id: 10 });
  t.true(b.cookies.has('sessionid') && b.cookies.has('csrftoken'));
  t.is((await b.json('GET', '/users/me')).body.user_id, 10);

  const other = browser(t);
  const page = await other.send('GET', '/devlogin/');
  t.is(page.status, 200);
  t.regex(page.text, /othello@zulip\.com/);
  const token = Browser.formToken(page.text);
  const done = await other.send('POST', '/accounts/login/local/', {
    direct_email: 'othello@zulip.com',
    csrfmiddlewaretoken: token,
  });
  t.is(done.status, 302);
  t.is((await other.json('GET', '/users/me')).body.user_id, 12);
});

test('the session cookie is not a key: another user session opens only its own account', async (t) => {
  const b = browser(t);
  await b.send('POST', '/api/v1/dev_fetch_api_key', { username: 'hamlet@zulip.com' });
  const forged = browser(t);
  forged.cookies.set('sessionid', 'a'.repeat(32));
  forged.cookies.set('csrftoken', b.cookies.get('csrftoken')!);
  t.is((await forged.json('GET', '/users/me')).status, 401);
  const drafts = await b.json('GET', '/drafts');
  t.is(drafts.status, 200);
});

test('behind an https EXTERNAL_URL both cookies are Secure', async (t) => {
  // The attributes come from the edge's configuration alone: one embedded server shows them for both targets.
  if (onCluster) return t.pass();
  const server = await TestServer.start({ externalUrl: 'https://chat.example.test' });
  try {
    const b = new Browser(server.client);
    const reply = await b.send('POST', '/api/v1/dev_fetch_api_key', { username: 'hamlet@zulip.com' });
    t.is(reply.status, 200);
    const [session, csrf] = ['sessionid=', 'csrftoken='].map((name) => b.setCookies.find((c) => c.startsWith(name))!);
    t.regex(session!, /; HttpOnly;.*SameSite=Lax; Secure$/);
    t.regex(csrf!, /SameSite=Lax; Secure$/);
    t.notRegex(csrf!, /HttpOnly/);
  } finally {
    await server.stop();
  }
});

/** Every documented operation, with its path's parameters filled with 1, and whether it requires credentials. */
async function operations(client: ChatClient) {
  const { body } = await client.get<{ paths: Record<string, Record<string, { security?: unknown[] }>> }>(
    '//api/v1/openapi.json',
  );
  return Object.entries(body.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({
      method: method.toUpperCase(),
      path: path.replace(/^\/api\/v1/, '').replace(/\{[^}]+\}/g, '1'),
      required: op.security === undefined,
    })),
  );
}

test('every operation is served under /json: without a session as without credentials, and no session write without the token', async (t) => {
  const ops = await operations(t.context.server.client);
  t.true(ops.length > 90);
  const b = browser(t);
  await b.send('POST', '/api/v1/dev_fetch_api_key', { username: 'cordelia@zulip.com' });
  const anonymous = browser(t);
  const wrong: string[] = [];
  for (const op of ops.filter((o) => o.required)) {
    const name = `${op.method} ${op.path}`;
    const bare = await anonymous.json(op.method, op.path, {}, null);
    if (bare.status !== 401 || bare.body.code !== 'UNAUTHORIZED') wrong.push(`${name} anonymous: ${bare.status}`);
    if (op.method === 'GET') continue;
    const unguarded = await b.json(op.method, op.path, {}, null);
    if (unguarded.status !== 403 || unguarded.body.code !== 'CSRF_FAILED')
      wrong.push(`${name} session: ${unguarded.status}`);
  }
  t.deepEqual(wrong, []);
  t.is((await b.json('GET', '/users/me')).body.email, 'cordelia@zulip.com');
});

test('a session asks its upload under /json (a temporary URL); the emoji data is served without credentials', async (t) => {
  const person = await newPerson(t.context, 'Upload Person');
  const file = [{ name: 'mine.txt', data: Buffer.from('mine') }];
  const { url } = (await person.client.upload<{ url: string }>('/user_uploads', file)).body;
  const b = browser(t);
  await b.logIn(person.email, person.password);
  const reply = await b.json('GET', url);
  t.is(reply.status, 200);
  t.regex(reply.body.url as string, /^\/user_uploads\/temporary\/[^/]+\/mine\.txt$/);
  const emoji = await t.context.server.client.fetch('GET', '//static/generated/emoji/emoji_api.json');
  t.is(emoji.status, 200);
  t.true('code_to_names' in ((await emoji.json()) as object));
});
