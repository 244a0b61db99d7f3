import { createHash } from 'node:crypto';
import type { ChatClient } from '@chat/testkit';
import { fakeEmailDomain } from '@chat/api';
import { loadConfig } from '../src/index.js';
import { withServer, IDS } from './context.js';
import { TestServer } from './support.js';
import { newPerson, type Person } from './people.js';
import { absentBefore, next, none, register, snapshotOf, type Body, type Event } from './queues.js';
import { linkIn, mailsTo, openPage } from './invite-support.js';
import { bodyOf, refused, succeeds } from './replies.js';

/**
 * `email_address_visibility` (a personal setting): who sees a user's real
 * address, as the original decides it. 1 everyone, 2 members, 3
 * administrators, 4 nobody, 5 moderators; the user always sees their own;
 * everyone else gets `delivery_email` null and, in `email`, the placeholder
 * `user<id>@<server host>`, in lists, messages and events alike.
 */
const test = withServer(['iago', 'shiva', 'hamlet', 'polonius']);

type Viewer = 'iago' | 'shiva' | 'hamlet' | 'polonius';
const VIEWERS: Viewer[] = ['iago', 'shiva', 'hamlet', 'polonius'];

/** Which of the viewers (administrator, moderator, member, guest) see the address under each value. */
const SEEN_BY: Record<number, Viewer[]> = {
  1: ['iago', 'shiva', 'hamlet', 'polonius'],
  2: ['iago', 'shiva', 'hamlet'],
  3: ['iago'],
  4: [],
  5: ['iago', 'shiva'],
};

let domain: string | undefined;
async function placeholder(client: ChatClient, id: number): Promise<string> {
  domain ??= (await snapshotOf(client, { fetch_event_types: ['realm'] })).realm_bot_domain as string;
  return `user${id}@${domain}`;
}

async function hiding(t: { context: Parameters<typeof newPerson>[0] }, name: string, value: number): Promise<Person> {
  const person = await newPerson(t.context, name);
  await succeeds('PATCH', '/settings', person.client.patch('/settings', { email_address_visibility: value }));
  return person;
}

const userById = async (client: ChatClient, id: number) =>
  (await bodyOf<{ user: Body }>(client.get(`/users/${id}`))).user;

const rowOf = (snapshot: Body, id: number) => (snapshot.realm_users as Body[]).find((u) => u.user_id === id)!;

for (const value of [1, 2, 3, 4, 5]) {
  test(`value ${value}: each role sees the real address as the original decides, in GET /users/{id}, GET /users and realm_users`, async (t) => {
    const target = await hiding(t, `Visibility ${value}`, value);
    const api = value === 1 ? target.email : await placeholder(t.context.hamlet, target.user_id);
    for (const viewer of VIEWERS) {
      const client = t.context[viewer];
      const expected = SEEN_BY[value]!.includes(viewer) ? target.email : null;
      const one = await userById(client, target.user_id);
      t.is(one.delivery_email, expected, `${viewer} GET /users/{id}`);
      t.is(one.email, api, `${viewer} email`);
      const all = (await bodyOf<{ members: Body[] }>(client.get('/users'))).members;
      t.like(
        all.find((u) => u.user_id === target.user_id),
        { delivery_email: expected, email: api },
        `${viewer} GET /users`,
      );
      const row = rowOf(await snapshotOf(client, { fetch_event_types: ['realm_user'] }), target.user_id);
      t.like(row, { delivery_email: expected, email: api }, `${viewer} realm_users`);
    }
    // The user always sees their own address, in the list and in their own account's keys.
    const own = await snapshotOf(target.client, { fetch_event_types: ['realm_user'] });
    t.like(rowOf(own, target.user_id), { delivery_email: target.email, email: api });
    t.like(own, { delivery_email: target.email, email: api, user_id: target.user_id });
    t.is((await userById(target.client, target.user_id)).delivery_email, target.email);
  });
}

test('the own row written anew among names of several bytes a letter leaves every row whole', async (t) => {
  // The list is kept as UTF-8 bytes and the caller's own row is put between slices of it: the slices must
  // fall between rows however many bytes the letters before and after take.
  const before = await newPerson(t.context, 'Zoë Ørsted 日本語');
  const target = await hiding(t, 'Visibility own', 4);
  const after = await newPerson(t.context, 'Łukasz 😀 Ñandú');
  const own = await snapshotOf(target.client, { fetch_event_types: ['realm_user'] });
  t.like(rowOf(own, target.user_id), { delivery_email: target.email, full_name: 'Visibility own' });
  t.is(rowOf(own, before.user_id).full_name, 'Zoë Ørsted 日本語');
  t.is(rowOf(own, after.user_id).full_name, 'Łukasz 😀 Ñandú');
  const members = (await bodyOf<{ members: Body[] }>(target.client.get('/users'))).members;
  const ids = (rows: Body[]) => rows.map((u) => u.user_id as number).sort((a, b) => a - b);
  t.deepEqual(ids(own.realm_users as Body[]), ids(members.filter((u) => u.is_active)));
});

test('changing the setting tells who gains or loses the address, and everyone the new API address', async (t) => {
  const target = await newPerson(t.context, 'Setting Changer');
  const [hamlet, polonius, iago] = await Promise.all(
    [t.context.hamlet, t.context.polonius, t.context.iago].map((c) => register(c, { event_types: ['realm_user'] })),
  );
  const about = (field: string) => (e: Event) =>
    e.type === 'realm_user' && (e.person as Body).user_id === target.user_id && field in (e.person as Body);
  const api = await placeholder(t.context.hamlet, target.user_id);

  // Everyone -> administrators: members and guests lose it; the API address becomes the placeholder for all.
  await succeeds('PATCH', '/settings', target.client.patch('/settings', { email_address_visibility: 3 }));
  for (const queue of [hamlet, polonius]) {
    t.deepEqual((await next(queue, about('delivery_email'))).person, { user_id: target.user_id, delivery_email: null });
  }
  for (const queue of [hamlet, polonius, iago]) {
    t.deepEqual((await next(queue, about('new_email'))).person, { user_id: target.user_id, new_email: api });
  }
  t.true(await none(iago, about('delivery_email')), 'administrators saw it and still do');
  // And the avatar, which clients computed from the address: the real address's gravatar.
  const gravatar = createHash('md5').update(target.email.toLowerCase()).digest('hex');
  t.true(String(((await next(hamlet, about('avatar_url'))).person as Body).avatar_url).includes(gravatar));

  // Administrators -> members: members gain it back; the API address stays the placeholder.
  hamlet.seen.length = 0;
  await succeeds('PATCH', '/settings', target.client.patch('/settings', { email_address_visibility: 2 }));
  t.deepEqual((await next(hamlet, about('delivery_email'))).person, {
    user_id: target.user_id,
    delivery_email: target.email,
  });
  t.true(await none(polonius, (e) => about('delivery_email')(e) && (e.person as Body).delivery_email !== null));
  t.true(await none(hamlet, about('new_email')));
  t.like(await userById(t.context.hamlet, target.user_id), { email: api, delivery_email: target.email });

  // Back to everyone: the real address is the API address again.
  await succeeds('PATCH', '/settings', target.client.patch('/settings', { email_address_visibility: 1 }));
  await next(polonius, (e) => about('delivery_email')(e) && (e.person as Body).delivery_email === target.email);
  await next(iago, (e) => about('new_email')(e) && (e.person as Body).new_email === target.email);
  t.like(await userById(t.context.polonius, target.user_id), { email: target.email, delivery_email: target.email });
});

test('a hidden address appears nowhere in messages, message events or the register snapshot of others', async (t) => {
  const target = await hiding(t, 'Nobody Sees', 4);
  const api = await placeholder(t.context.hamlet, target.user_id);
  const queue = await register(t.context.hamlet, { event_types: ['message', 'typing', 'reaction', 'realm_user'] });
  await target.client.post('/users/me/presence', { status: 'active' });
  const dm = await bodyOf<{ id: number }>(
    target.client.post('/messages', { type: 'direct', to: JSON.stringify([IDS.hamlet]), content: 'psst' }),
  );
  await target.client.post('/typing', { type: 'direct', op: 'start', to: JSON.stringify([IDS.hamlet]) });
  const event = await next(queue, (e) => e.type === 'message' && (e.message as Body).id === dm.id);
  t.is((event.message as Body).sender_email, api);
  const typing = await next(queue, (e) => e.type === 'typing');
  t.is((typing.sender as Body).email, api);
  await target.client.post(`/messages/${dm.id}/reactions`, { emoji_name: 'smile' });
  const reaction = await next(queue, (e) => e.type === 'reaction');
  t.is((reaction.user as Body).email, api);
  await target.client.patch('/settings', { timezone: 'Asia/Kolkata' });
  const zone = await next(queue, (e) => e.type === 'realm_user' && (e.person as Body).timezone === 'Asia/Kolkata');
  t.is((zone.person as Body).email, api);
  const fetched = await bodyOf<{ messages: Body[] }>(
    t.context.hamlet.get('/messages', { anchor: dm.id, num_before: 0, num_after: 0, client_gravatar: true }),
  );
  const message = fetched.messages[0]!;
  t.is(message.sender_email, api);
  // The picture is the real address's gravatar, which a client cannot compute from the placeholder.
  const gravatar = createHash('md5').update(target.email.toLowerCase()).digest('hex');
  t.true(String(message.avatar_url).includes(gravatar));
  const listed = await bodyOf<{ user: Body }>(
    t.context.hamlet.get(`/users/${target.user_id}`, { client_gravatar: true }),
  );
  t.true(String(listed.user.avatar_url).includes(gravatar));
  t.true((message.display_recipient as Body[]).some((p) => p.id === target.user_id && p.email === api));
  for (const viewer of VIEWERS) {
    const snapshot = await snapshotOf(t.context[viewer], {});
    t.false(JSON.stringify(snapshot).includes(target.email), `${viewer}'s register shows the address`);
  }
  for (const text of [JSON.stringify(fetched), JSON.stringify(queue.seen)]) t.false(text.includes(target.email));
});

test('lookups by address: the placeholder finds anyone, the real address only for those who may see it', async (t) => {
  const target = await hiding(t, 'Lookup Target', 3);
  const api = await placeholder(t.context.hamlet, target.user_id);
  const byEmail = (client: ChatClient, email: string) => client.get(`/users/${encodeURIComponent(email)}`);
  t.like((await bodyOf<{ user: Body }>(byEmail(t.context.iago, target.email))).user, { user_id: target.user_id });
  await refused(t, byEmail(t.context.hamlet, target.email), 'No such user');
  t.like((await bodyOf<{ user: Body }>(byEmail(t.context.hamlet, api))).user, {
    user_id: target.user_id,
    delivery_email: null,
  });
  // So does presence by address: the real one of a hidden user names nobody.
  await target.client.post('/users/me/presence', { status: 'active' });
  await succeeds('GET', '/users/{user_id_or_email}/presence', t.context.hamlet.get(`/users/${api}/presence`));
  await refused(t, t.context.hamlet.get(`/users/${encodeURIComponent(target.email)}/presence`), 'No such user');
  // Direct messages take the API address; the hidden real one names nobody.
  await succeeds('POST', '/messages', t.context.hamlet.post('/messages', { type: 'direct', to: api, content: 'hi' }));
  await refused(
    t,
    t.context.hamlet.post('/messages', { type: 'direct', to: target.email, content: 'hi' }),
    `Invalid email '${target.email}'`,
  );
  // The user still authenticates with the real address, and logs in with it.
  t.is((await target.client.get('/users/me')).status, 200);
  const key = await t.context.server.client.post<Body>('/fetch_api_key', {
    username: target.email,
    password: target.password,
  });
  t.like(key.body, { result: 'success', email: target.email, user_id: target.user_id });
});

test('a hidden address that changes reaches only those who may see it; the API address stays', async (t) => {
  const target = await hiding(t, 'Address Changer', 3);
  const api = await placeholder(t.context.hamlet, target.user_id);
  const [admin, member] = await Promise.all(
    [t.context.iago, t.context.hamlet].map((c) => register(c, { event_types: ['realm_user'] })),
  );
  const fresh = `changed-${target.user_id}-${Date.now()}@example.com`;
  await succeeds('PATCH', '/settings', target.client.patch('/settings', { email: fresh }));
  const link = linkIn((await mailsTo(t.context.server, fresh))[0], '/accounts/confirm_new_email/');
  t.is((await openPage(link)).status, 200);
  const mine = (e: Event) => e.type === 'realm_user' && (e.person as Body).user_id === target.user_id;
  t.deepEqual((await next(admin, mine)).person, { user_id: target.user_id, delivery_email: fresh });
  // A later change everyone hears marks the end of what the address change sent.
  const renamed = t.context.server.client.as({ email: fresh, apiKey: target.apiKey });
  await succeeds('PATCH', '/settings', renamed.patch('/settings', { full_name: 'Address Changed' }));
  const marker = (e: Event) => mine(e) && (e.person as Body).full_name === 'Address Changed';
  t.true(await absentBefore(member, marker, (e) => mine(e) && (e.person as Body).full_name === undefined));
  t.true(await absentBefore(admin, marker, (e) => mine(e) && 'new_email' in (e.person as Body)));
  t.like(await userById(t.context.hamlet, target.user_id), { email: api, delivery_email: null });
  t.like(await userById(t.context.iago, target.user_id), { email: api, delivery_email: fresh });
});

test('a bot given to an owner who hides the address names the owner by the placeholder', async (t) => {
  const owner = await hiding(t, 'Bot Owner', 4);
  const api = await placeholder(t.context.hamlet, owner.user_id);
  const bot = await bodyOf<{ user_id: number }>(
    t.context.iago.post('/bots', { full_name: 'Hidden Owner Bot', short_name: `hidden-owner-${owner.user_id}` }),
  );
  const changed = await bodyOf<Body>(t.context.iago.patch(`/bots/${bot.user_id}`, { bot_owner_id: owner.user_id }));
  t.is(changed.bot_owner, api);
});

test.serial('the organization default applies to accounts created after it, with their placeholder', async (t) => {
  const set = (value: number) =>
    succeeds(
      'PATCH',
      '/realm/user_settings_defaults',
      t.context.iago.patch('/realm/user_settings_defaults', { email_address_visibility: value }),
    );
  await set(4);
  try {
    const queue = await register(t.context.hamlet, { event_types: ['realm_user'] });
    const person = await newPerson(t.context, 'Hidden From Start');
    const api = await placeholder(t.context.hamlet, person.user_id);
    const added = await next(queue, (e) => e.op === 'add' && (e.person as Body).user_id === person.user_id);
    t.like(added.person, { email: api, delivery_email: null });
    t.like(await userById(t.context.iago, person.user_id), { email: api, delivery_email: null });
    t.like(await userById(person.client, person.user_id), { email: api, delivery_email: person.email });
  } finally {
    await set(1);
  }
});

test('the placeholder domain: the host when it can end an address, else FAKE_EMAIL_DOMAIN, as the original', async (t) => {
  // The original's get_fake_email_domain: the host, port included, must be a mail domain.
  t.is(fakeEmailDomain('https://chat.example.com'), 'chat.example.com');
  t.is(fakeEmailDomain('https://chat.example.com', 'other.example.org'), 'chat.example.com');
  t.is(fakeEmailDomain('http://localhost:9991'), 'localhost');
  t.is(fakeEmailDomain('https://chat.example.com:8443', 'fake.example.org'), 'fake.example.org');
  t.is(fakeEmailDomain('http://127.0.0.1:9991', 'fake.example.org'), 'fake.example.org');
  const refused = '127.0.0.1 is not a valid domain. Consider setting the FAKE_EMAIL_DOMAIN setting.';
  t.throws(() => loadConfig({ FAKE_EMAIL_DOMAIN: '127.0.0.1' }), { message: refused });
  t.is(loadConfig({ FAKE_EMAIL_DOMAIN: 'fake.example.org' }).fakeEmailDomain, 'fake.example.org');

  // This test server's host, 127.0.0.1:<port>, cannot end an address: the setting's domain is used.
  const server = await TestServer.start({ fakeEmailDomain: 'fake.example.org' });
  try {
    const iago = await server.login('iago@zulip.com');
    const hamlet = await server.login('hamlet@zulip.com');
    t.is((await snapshotOf(hamlet, { fetch_event_types: ['realm'] })).realm_bot_domain, 'fake.example.org');
    await succeeds('PATCH', '/settings', hamlet.patch('/settings', { email_address_visibility: 4 }));
    t.like(await userById(iago, IDS.hamlet), { email: `user${IDS.hamlet}@fake.example.org` });
    const bot = await bodyOf<{ user_id: number }>(
      iago.post('/bots', { full_name: 'Domain Bot', short_name: 'domain' }),
    );
    t.like(await userById(iago, bot.user_id), { email: 'domain-bot@fake.example.org' });
  } finally {
    await server.stop();
  }
});
