import { assertResponse, type ChatClient } from '@chat/testkit';
import { channelId, userId, withServer } from './context.js';
import { linkIn, mailsTo, openPage, postForm, recentMessages, type Body } from './invite-support.js';
import { register, take } from './queues.js';

/**
 * E-mail invitations end to end: the invitation, the mail in the outbox,
 * the page the link opens, the new account and what it was promised.
 */
const test = withServer(['iago', 'hamlet']);

type Invite = Body & { id: number; email: string; invited: number; expiry_date: number | null };

async function invitesOf(client: ChatClient): Promise<Invite[]> {
  const reply = await client.get<{ invites: Invite[] }>('/invites');
  assertResponse('GET', '/invites', 200, reply.body);
  return reply.body.invites;
}

test('an invitation, partly refused, is mailed, accepted in the browser, and keeps its promises', async (t) => {
  const { server, iago, hamlet } = t.context;
  const hamletId = await userId(hamlet);
  const denmark = await channelId(hamlet, 'Denmark');
  // A default channel the new user gets only through include_realm_default_subscriptions.
  const made = await iago.post('/users/me/subscriptions', {
    subscriptions: JSON.stringify([{ name: 'newcomers' }]),
    is_default_stream: true,
  });
  t.is(made.status, 200);
  const group = await hamlet.post<{ group_id: number }>('/user_groups/create', {
    name: 'welcome party',
    description: 'Joined through an invitation',
    members: JSON.stringify([hamletId]),
  });
  t.is(group.status, 200);
  const groupId = group.body.group_id;
  const queue = await register(hamlet, { event_types: ['realm_user', 'message', 'invites_changed', 'user_group'] });

  const reply = await hamlet.post('/invites', {
    invitee_emails: 'ann@example.com, othello@zulip.com\nBob Builder <bob@example.com>',
    stream_ids: JSON.stringify([denmark]),
    group_ids: JSON.stringify([groupId]),
    include_realm_default_subscriptions: true,
  });
  t.is(reply.status, 400);
  assertResponse('POST', '/invites', 400, reply.body);
  t.like(reply.body, {
    result: 'error',
    code: 'INVITATION_FAILED',
    msg: "Some of those addresses are already using Zulip, so we didn't send them an invitation. We did send invitations to everyone else!",
    sent_invitations: true,
    license_limit_reached: false,
    daily_limit_reached: false,
  });
  t.deepEqual(reply.body.errors, [['othello@zulip.com', 'Already has an account.', false]]);
  await take(queue, (e) => e.type === 'invites_changed');

  const mine = await invitesOf(hamlet);
  const ann = mine.find((i) => i.email === 'ann@example.com');
  t.truthy(ann);
  t.truthy(mine.find((i) => i.email === 'bob@example.com'));
  t.false(mine.some((i) => i.email === 'othello@zulip.com'));
  t.like(ann, { invited_by_user_id: hamletId, invited_as: 400, is_multiuse: false, notify_referrer_on_join: true });
  t.is(ann!.expiry_date, ann!.invited + 14400 * 60);
  t.is((await mailsTo(server, 'othello@zulip.com')).length, 0);
  t.is((await mailsTo(server, 'bob@example.com')).length, 1);

  const [mail] = await mailsTo(server, 'ann@example.com');
  const link = linkIn(mail, '/join/');
  const page = await openPage(link);
  t.is(page.status, 200);
  t.regex(page.type ?? '', /text\/html/);
  t.regex(page.html, /<form method="post">/);
  t.true(page.html.includes('ann@example.com'));

  const joined = await postForm(link, { full_name: 'Ann Example', password: 'correct horse' });
  t.is(joined.status, 200, joined.html);
  const grant = await server.client.post<{ api_key: string; user_id: number }>('/fetch_api_key', {
    username: 'ann@example.com',
    password: 'correct horse',
  });
  t.is(grant.status, 200);
  assertResponse('POST', '/fetch_api_key', 200, grant.body);
  const ann2 = server.client.as({ email: 'ann@example.com', apiKey: grant.body.api_key });
  const me = await ann2.get<Body>('/users/me');
  t.like(me.body, { full_name: 'Ann Example', role: 400, user_id: grant.body.user_id });
  const subs = await ann2.get<{ subscriptions: Array<{ name: string }> }>('/users/me/subscriptions');
  t.deepEqual(subs.body.subscriptions.map((s) => s.name).sort(), ['Denmark', 'newcomers']);

  // Other tests' accounts and notices pass through this queue too: wait for Ann's.
  const added = await take(queue, (e) => e.type === 'realm_user' && (e.person as Body).email === 'ann@example.com');
  t.like(added, { op: 'add' });
  t.like(added.person, { user_id: grant.body.user_id, full_name: 'Ann Example', role: 400, is_active: true });
  const groupEvent = await take(queue, (e) => e.type === 'user_group' && e.group_id === groupId);
  t.like(groupEvent, { op: 'add_members', user_ids: [grant.body.user_id] });
  const members = await hamlet.get<{ members: number[] }>(`/user_groups/${groupId}/members`);
  t.deepEqual(members.body.members.sort(), [hamletId, grant.body.user_id].sort());
  const notice = await take(
    queue,
    (e) => e.type === 'message' && String((e.message as Body).content).includes('Ann Example'),
  );
  t.like(notice.message, { sender_email: 'notification-bot@zulip.com', type: 'private' });
  const dms = await recentMessages(hamlet);
  t.true(
    dms.some((m) => m.content === `@_**Ann Example|${grant.body.user_id}** accepted your invitation to join Zulip!`),
  );

  // Spent: the link no longer works and the invitation is gone; Bob's stays.
  t.is((await openPage(link)).status, 404);
  t.is((await postForm(link, { full_name: 'Again', password: 'another one' })).status, 404);
  const after = await invitesOf(hamlet);
  t.false(after.some((i) => i.email === 'ann@example.com'));
  t.true(after.some((i) => i.email === 'bob@example.com'));
});

test('the join form refuses a weak password and keeps the invitation', async (t) => {
  const { server, hamlet } = t.context;
  const sent = await hamlet.post('/invites', { invitee_emails: 'weak@example.com', stream_ids: '[]' });
  t.is(sent.status, 200);
  assertResponse('POST', '/invites', 200, sent.body);
  const link = linkIn((await mailsTo(server, 'weak@example.com'))[0], '/join/');
  const refused = await postForm(link, { full_name: 'Weak', password: '123' });
  t.is(refused.status, 400);
  t.regex(refused.html, /too weak/);
  const login = await server.client.post('/fetch_api_key', { username: 'weak@example.com', password: '123' });
  t.is(login.status, 401);
  t.is((await openPage(link)).status, 200);
});

test('roles, welcome text and referrer notices follow the inviter', async (t) => {
  const { server, iago, hamlet } = t.context;
  const sent = await iago.post('/invites', {
    invitee_emails: 'mod@example.com',
    stream_ids: '[]',
    invite_as: 300,
    notify_referrer_on_join: false,
    welcome_message_custom_text: 'Welcome aboard, **moderator**!',
  });
  t.is(sent.status, 200);
  const fromMember = await hamlet.post('/invites', {
    invitee_emails: 'plain@example.com',
    stream_ids: '[]',
    welcome_message_custom_text: 'Ignored: members cannot set this',
  });
  t.is(fromMember.status, 200);
  for (const [address, name] of [
    ['mod@example.com', 'Mod Erator'],
    ['plain@example.com', 'Plain Member'],
  ] as const) {
    const link = linkIn((await mailsTo(server, address))[0], '/join/');
    t.is((await postForm(link, { full_name: name, password: 'long enough' })).status, 200);
  }
  const login = async (username: string) => {
    const grant = await server.client.post<{ api_key: string }>('/fetch_api_key', {
      username,
      password: 'long enough',
    });
    return server.client.as({ email: username, apiKey: grant.body.api_key });
  };
  const mod = await login('mod@example.com');
  t.like((await mod.get('/users/me')).body, { role: 300 });
  t.true((await recentMessages(mod)).some((m) => m.content === 'Welcome aboard, **moderator**!'));
  const plain = await login('plain@example.com');
  t.false((await recentMessages(plain)).some((m) => String(m.content).startsWith('Ignored')));
  // notify_referrer_on_join: false; the join finished before its page answered, so absence is final.
  const modId = await userId(mod);
  t.false((await recentMessages(iago)).some((m) => String(m.content).includes(`|${modId}**`)));
  // No default channels without include_realm_default_subscriptions.
  const subs = await plain.get<{ subscriptions: unknown[] }>('/users/me/subscriptions');
  t.deepEqual(subs.body.subscriptions, []);
});
