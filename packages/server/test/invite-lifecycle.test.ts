import { assertResponse, type ChatClient } from '@chat/testkit';
import { withServer } from './context.js';
import { linkIn, mailsTo, openPage, postForm, type Body } from './invite-support.js';
import { register, take } from './queues.js';

/** After sending: listing, revocation, resending, expiry; and new accounts made by administrators. */
const test = withServer(['iago', 'hamlet', 'othello']);

type Invite = { id: number; email: string; invited: number; expiry_date: number | null };

async function inviteOne(client: ChatClient, email: string, params: Body = {}): Promise<Invite> {
  const sent = await client.post('/invites', { invitee_emails: email, stream_ids: '[]', ...params });
  if (sent.status !== 200) throw new Error(`invite: ${JSON.stringify(sent.body)}`);
  const listed = await client.get<{ invites: Invite[] }>('/invites');
  assertResponse('GET', '/invites', 200, listed.body);
  return listed.body.invites.find((i) => i.email === email)!;
}

const listedFor = async (client: ChatClient) =>
  (await client.get<{ invites: Invite[] }>('/invites')).body.invites.map((i) => i.email);

test('administrators see every invitation, others their own', async (t) => {
  const { iago, hamlet, othello } = t.context;
  await inviteOne(hamlet, 'by-hamlet@example.com');
  await inviteOne(othello, 'by-othello@example.com');
  t.true((await listedFor(iago)).includes('by-hamlet@example.com'));
  t.true((await listedFor(iago)).includes('by-othello@example.com'));
  t.true((await listedFor(hamlet)).includes('by-hamlet@example.com'));
  t.false((await listedFor(hamlet)).includes('by-othello@example.com'));
});

test('a revoked invitation stops working', async (t) => {
  const { server, othello } = t.context;
  // Prospero invites in this test only: his queue hears of his invitations alone (he is no administrator).
  const prospero = await server.login('prospero@zulip.com');
  const own = await register(prospero, { event_types: ['invites_changed'] });
  const invite = await inviteOne(prospero, 'revoked@example.com');
  await take(own, (e) => e.type === 'invites_changed');
  const link = linkIn((await mailsTo(server, 'revoked@example.com'))[0], '/join/');

  const notHis = await othello.delete(`/invites/${invite.id}`);
  t.is(notHis.status, 400);
  assertResponse('DELETE', `/invites/${invite.id}`, 400, notHis.body);
  t.like(notHis.body, { code: 'BAD_REQUEST', msg: 'Must be an organization administrator' });

  const revoked = await prospero.delete(`/invites/${invite.id}`);
  t.is(revoked.status, 200);
  assertResponse('DELETE', `/invites/${invite.id}`, 200, revoked.body);
  await take(own, (e) => e.type === 'invites_changed');
  t.false((await listedFor(prospero)).includes('revoked@example.com'));
  t.is((await openPage(link)).status, 404);
  t.is((await postForm(link, { full_name: 'Too Late', password: 'long enough' })).status, 404);
  const login = await server.client.post('/fetch_api_key', {
    username: 'revoked@example.com',
    password: 'long enough',
  });
  t.is(login.status, 401);

  const again = await prospero.delete(`/invites/${invite.id}`);
  t.is(again.status, 400);
  assertResponse('DELETE', `/invites/${invite.id}`, 400, again.body);
  t.like(again.body, { code: 'BAD_REQUEST', msg: 'No such invitation' });
});

test('a resent invitation mails a new link and retires the old one', async (t) => {
  const { server, iago, hamlet } = t.context;
  const invite = await inviteOne(hamlet, 'resent@example.com', { invite_expires_in_minutes: 90 });
  const first = linkIn((await mailsTo(server, 'resent@example.com'))[0], '/join/');
  const resent = await iago.post(`/invites/${invite.id}/resend`);
  t.is(resent.status, 200);
  assertResponse('POST', `/invites/${invite.id}/resend`, 200, resent.body);
  const mails = await mailsTo(server, 'resent@example.com');
  t.is(mails.length, 2);
  const second = linkIn(mails[1], '/join/');
  t.not(second, first);
  t.is((await openPage(first)).status, 404);
  t.is((await openPage(second)).status, 200);
  const renewed = (await iago.get<{ invites: Invite[] }>('/invites')).body.invites.find((i) => i.id === invite.id)!;
  t.is(renewed.expiry_date! - renewed.invited, 90 * 60);

  const unknown = await iago.post('/invites/424242/resend');
  t.is(unknown.status, 400);
  assertResponse('POST', '/invites/424242/resend', 400, unknown.body);
  t.like(unknown.body, { code: 'BAD_REQUEST', msg: 'No such invitation' });
});

test('expiry: minutes, never, and an invitation already past its time', async (t) => {
  const { server, hamlet } = t.context;
  const short = await inviteOne(hamlet, 'short@example.com', { invite_expires_in_minutes: 1 });
  t.is(short.expiry_date! - short.invited, 60);
  const never = await inviteOne(hamlet, 'never@example.com', { invite_expires_in_minutes: 'null' });
  t.is(never.expiry_date, null);
  t.true((await mailsTo(server, 'never@example.com'))[0]!.text.includes('does not expire'));

  // Zero minutes: expired as soon as it exists, so every use of it meets the expiry rule.
  const sent = await hamlet.post('/invites', {
    invitee_emails: 'expired@example.com',
    stream_ids: '[]',
    invite_expires_in_minutes: 0,
  });
  t.is(sent.status, 200);
  t.false((await listedFor(hamlet)).includes('expired@example.com'));
  const link = linkIn((await mailsTo(server, 'expired@example.com'))[0], '/join/');
  const page = await openPage(link);
  t.is(page.status, 404);
  t.regex(page.html, /expired/);
  t.is((await postForm(link, { full_name: 'Late', password: 'long enough' })).status, 404);
});

test('an account created by an administrator is announced to everyone', async (t) => {
  const { iago, hamlet } = t.context;
  const plain = await register(hamlet, { event_types: ['realm_user'] });
  const urls = await register(iago, { event_types: ['realm_user'], client_gravatar: false });
  await inviteOne(hamlet, 'made@example.com');
  const created = await iago.post<{ user_id: number }>('/users', {
    email: 'made@example.com',
    password: 'long enough',
    full_name: 'Made By Iago',
  });
  t.is(created.status, 200);
  const isNew = (e: Body) => e.type === 'realm_user' && (e.person as Body).user_id === created.body.user_id;
  const seen = await take(plain, isNew);
  t.like(seen, { op: 'add' });
  t.like(seen.person, { email: 'made@example.com', full_name: 'Made By Iago', is_admin: false, avatar_url: null });
  const withUrl = await take(urls, isNew);
  t.regex(String((withUrl.person as Body).avatar_url), /^https:\/\/secure\.gravatar\.com\/avatar\//);
  // The account spends any invitation to its address.
  t.false((await listedFor(iago)).includes('made@example.com'));
});
