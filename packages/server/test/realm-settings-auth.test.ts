import type { ChatClient } from '@chat/testkit';
import { Browser } from './browser.js';
import { withServer } from './context.js';
import { newPerson, type Person } from './people.js';
import { next, register, snapshotOf, type Body, type Event } from './queues.js';
import { bodyOf, fails, refused } from './replies.js';

/**
 * `authentication_methods` of PATCH /realm: owners only, the original's
 * checks and `realm update_dict` event, and what follows from it: the
 * register's `realm_authentication_methods` (only the ways this server
 * offers: "Email", and "Dev" on a development server), `/server_settings`,
 * and the logins themselves. Tests turn the organization's logins off, so
 * they run one after another, put everything back, and log in beforehand.
 */
const test = withServer<'desdemona' | 'iago' | 'hamlet', { person: Person }>(
  ['desdemona', 'iago', 'hamlet'],
  {},
  async (t) => {
    t.context.person = await newPerson(t.context, 'Password Holder');
  },
);

const patch = (client: ChatClient, methods: Body, more: Body = {}) =>
  client.patch<Body>('/realm', { authentication_methods: JSON.stringify(methods), ...more });
const BOTH_ON = { Dev: true, Email: true };
const table = (dev: boolean, email: boolean) => ({
  Dev: { enabled: dev, available: true },
  Email: { enabled: email, available: true },
});

const serverSettings = (client: ChatClient): Promise<Body> => bodyOf(client.as(undefined).get('/server_settings'));

test.serial('the snapshot and /server_settings show the ways this server offers, all on at first', async (t) => {
  const snapshot = await snapshotOf(t.context.hamlet, { fetch_event_types: ['realm'] });
  t.deepEqual(snapshot.realm_authentication_methods, table(true, true));
  t.like(snapshot, { realm_email_auth_enabled: true, realm_password_auth_enabled: true });
  t.false('realm_dev_auth_enabled' in snapshot, 'where the realm keeps it is not a register key');
  t.like((await serverSettings(t.context.hamlet)).authentication_methods, { password: true, email: true, dev: true });
});

test.serial('only owners change them, to known names, leaving one on, checked in the original order', async (t) => {
  const { desdemona, iago, hamlet } = t.context;
  const role = (client: ChatClient, methods: Body, msg: string) =>
    fails(t, patch(client, methods), 'UNAUTHORIZED_PRINCIPAL', msg);
  await role(hamlet, { Email: true }, 'Must be an organization administrator');
  await role(iago, { Email: true }, 'Must be an organization owner');
  await role(iago, { LDAP: true }, 'Must be an organization owner');
  const valid = "Valid methods are: ['Dev', 'Email']";
  await refused(t, patch(desdemona, { LDAP: true }), `Invalid authentication method: LDAP. ${valid}`);
  await refused(t, patch(desdemona, { Email: false }), 'At least one authentication method must be enabled.');
  await refused(t, patch(desdemona, {}), 'At least one authentication method must be enabled.');
  // The language is checked first, the video provider after.
  await refused(t, patch(desdemona, { LDAP: true }, { default_language: 'xx' }), "Invalid language 'xx'");
  const both = patch(desdemona, { Email: false }, { video_chat_provider: 99 });
  await refused(t, both, 'At least one authentication method must be enabled.');
  t.deepEqual(
    (await snapshotOf(hamlet, { fetch_event_types: ['realm'] })).realm_authentication_methods,
    table(true, true),
  );
});

test.serial(
  'with "Email" off, password login is refused as the original refuses it, and everyone hears it',
  async (t) => {
    const { desdemona, hamlet, person } = t.context;
    const queue = await register(hamlet, { event_types: ['realm'] });
    try {
      const reply = await bodyOf(patch(desdemona, { Email: false, Dev: true }));
      t.deepEqual(reply.authentication_methods, { Email: false, Dev: true });
      const event = await next(queue, (e: Event) => e.type === 'realm' && e.op === 'update_dict');
      t.deepEqual(event, {
        type: 'realm',
        op: 'update_dict',
        property: 'default',
        data: { authentication_methods: table(true, false) },
        id: event.id,
      });
      const snapshot = await snapshotOf(hamlet, { fetch_event_types: ['realm'] });
      t.deepEqual(snapshot.realm_authentication_methods, table(true, false));
      t.like(snapshot, { realm_email_auth_enabled: false, realm_password_auth_enabled: false });
      const settings = await serverSettings(t.context.hamlet);
      t.like(settings, {
        email_auth_enabled: false,
        authentication_methods: { password: false, email: false, dev: true },
      });
      // Refused before the user is looked up: a right password, a wrong one, and no such user alike.
      const anonymous = hamlet.as(undefined);
      for (const [username, password] of [
        [person.email, person.password],
        [person.email, 'wrong'],
        ['ghost@zulip.com', 'wrong'],
      ]) {
        const login = await anonymous.post('/fetch_api_key', { username, password });
        t.is(login.status, 401);
        t.deepEqual(login.body, {
          result: 'error',
          msg: 'Password authentication is disabled in this organization',
          code: 'PASSWORD_AUTH_DISABLED',
        });
      }
      // The browser's login form says so, and starts no session.
      const b = new Browser(t.context.server.client);
      const page = await b.send('GET', '/accounts/login/');
      const form = await b.send('POST', '/accounts/login/', {
        username: person.email,
        password: person.password,
        csrfmiddlewaretoken: Browser.formToken(page.text),
      });
      t.is(form.status, 200);
      t.regex(form.text, /Password authentication is disabled in this organization/);
      t.false(b.cookies.has('sessionid'));
      // Changing one's password checks the old one as a login does: refused even when right.
      const change = await person.client.patch('/settings', {
        old_password: person.password,
        new_password: 'x'.repeat(12),
      });
      t.is(change.status, 400);
      t.deepEqual(change.body, { result: 'error', msg: 'Wrong password!', code: 'BAD_REQUEST' });
      // The same table again changes nothing, so names nothing.
      const again = await bodyOf(patch(desdemona, { Email: false, Dev: true }));
      t.false('authentication_methods' in again);
    } finally {
      await bodyOf(patch(desdemona, BOTH_ON));
    }
    const login = await hamlet
      .as(undefined)
      .post('/fetch_api_key', { username: person.email, password: person.password });
    t.is(login.status, 200, 'password login works again, with the password the refused change kept');
  },
);

test.serial('with "Dev" off, the development login finds no one; a partial table keeps the rest', async (t) => {
  const { desdemona, hamlet, person } = t.context;
  try {
    const reply = await bodyOf(patch(desdemona, { Dev: false, Email: true }));
    t.deepEqual(reply.authentication_methods, { Dev: false, Email: true });
    const dev = await hamlet.as(undefined).post('/dev_fetch_api_key', { username: 'hamlet@zulip.com' });
    t.is(dev.status, 401);
    t.like(dev.body, { code: 'AUTHENTICATION_FAILED', msg: 'Your username or password is incorrect' });
    t.like((await serverSettings(t.context.hamlet)).authentication_methods, { password: true, dev: false });
    const login = await hamlet
      .as(undefined)
      .post('/fetch_api_key', { username: person.email, password: person.password });
    t.is(login.status, 200);
    // Naming only "Email" (on) differs from the whole table, so it is a change; "Dev" stays off.
    const partial = await bodyOf(patch(desdemona, { Email: true }));
    t.deepEqual(partial.authentication_methods, { Email: true });
    const snapshot = await snapshotOf(hamlet, { fetch_event_types: ['realm'] });
    t.deepEqual(snapshot.realm_authentication_methods, table(false, true));
  } finally {
    await bodyOf(patch(desdemona, BOTH_ON));
  }
  const dev = await hamlet.as(undefined).post('/dev_fetch_api_key', { username: 'hamlet@zulip.com' });
  t.is(dev.status, 200, 'the development login works again');
});
