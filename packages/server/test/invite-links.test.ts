import { assertResponse, type ChatClient } from '@chat/testkit';
import { channelId, withServer } from './context.js';
import { openPage, postForm, type Body } from './invite-support.js';
import { register, take } from './queues.js';

/**
 * Reusable invitation links: who may make and revoke them, the listing,
 * and the join page through which any number of people sign up by one
 * link and land with its role, channels and groups, until it is revoked
 * or expires.
 */
const test = withServer(['iago', 'hamlet', 'polonius']);

type Listed = { id: number; is_multiuse: boolean; link_url?: string; invited_as: number; expiry_date: number | null };

async function makeLink(client: ChatClient, params: Body = {}): Promise<string> {
  const reply = await client.post<{ invite_link: string }>('/invites/multiuse', params);
  assertResponse('POST', '/invites/multiuse', reply.status, reply.body);
  if (reply.status !== 200) throw new Error(`link: ${JSON.stringify(reply.body)}`);
  return reply.body.invite_link;
}

async function linksOf(client: ChatClient): Promise<Listed[]> {
  const reply = await client.get<{ invites: Listed[] }>('/invites');
  assertResponse('GET', '/invites', reply.status, reply.body);
  return reply.body.invites.filter((i) => i.is_multiuse);
}

const refusal = async (reply: Promise<{ status: number; body: Body }>) => {
  const { status, body } = await reply;
  return { status, code: body.code, msg: body.msg };
};
const badRequest = (msg: string) => ({ status: 400, code: 'BAD_REQUEST', msg });

async function signUp(link: string, email: string, fullName: string) {
  return postForm(link, { email, full_name: fullName, password: 'a long password' });
}

async function logIn(
  t: { context: { server: { client: ChatClient; login(e: string): Promise<ChatClient> } } },
  email: string,
) {
  const reply = await t.context.server.client.post<{ api_key: string }>('/fetch_api_key', {
    username: email,
    password: 'a long password',
  });
  if (reply.status !== 200) throw new Error(`login ${email}: ${JSON.stringify(reply.body)}`);
  return t.context.server.client.as({ email, apiKey: reply.body.api_key });
}

test.serial('two people join by one link with its role, channels and groups', async (t) => {
  const { iago } = t.context;
  const queue = await register(iago, { event_types: ['invites_changed'] });
  const denmark = await channelId(iago, 'Denmark');
  const group = await iago.post<{ group_id: number }>('/user_groups/create', {
    name: 'link joiners',
    description: 'joined by a link',
    members: '[]',
  });
  t.is(group.status, 200, JSON.stringify(group.body));
  const link = await makeLink(iago, {
    invite_as: 300,
    stream_ids: JSON.stringify([denmark]),
    group_ids: JSON.stringify([group.body.group_id]),
  });
  t.regex(link, /^http:\/\/[^/]+\/join\/[a-z2-7]{24}\/$/);
  await take(queue, (e) => e.type === 'invites_changed');
  const listed = (await linksOf(iago)).find((i) => i.link_url === link);
  t.like(listed, { is_multiuse: true, invited_as: 300 });
  t.false('email' in listed!);

  const page = await openPage(link);
  t.is(page.status, 200);
  t.regex(page.html, /name="email"/);
  for (const [email, name] of [
    ['first-by-link@example.com', 'First Joiner'],
    ['second-by-link@example.com', 'Second Joiner'],
  ] as const) {
    const joined = await signUp(link, email, name);
    t.is(joined.status, 200, joined.html);
    const client = await logIn(t, email);
    const me = await client.get<{ role: number; full_name: string; user_id: number }>('/users/me');
    t.like(me.body, { role: 300, full_name: name });
    const subs = await client.get<{ subscriptions: Array<{ stream_id: number }> }>('/users/me/subscriptions');
    t.true(subs.body.subscriptions.some((s) => s.stream_id === denmark));
    const members = await iago.get<{ members: number[] }>(`/user_groups/${group.body.group_id}/members`);
    t.true(members.body.members.includes(me.body.user_id));
  }
  // The link still works after use; an address with an account is refused on the page.
  const taken = await signUp(link, 'first-by-link@example.com', 'Again');
  t.is(taken.status, 400);
  t.regex(taken.html, /Already has an account\./);
  t.regex(taken.html, /value="first-by-link@example.com"/);
  const invalid = await signUp(link, 'not an address', 'Someone');
  t.is(invalid.status, 400);
  t.regex(invalid.html, /Please enter a valid email address\./);
});

test.serial('revoking: only the maker or an administrator, once; then the link is dead', async (t) => {
  const { iago, hamlet, server } = t.context;
  const link = await makeLink(iago, {});
  const { id } = (await linksOf(iago)).find((i) => i.link_url === link)!;
  t.deepEqual(
    await refusal(hamlet.delete(`/invites/multiuse/${id}`)),
    badRequest('Must be an organization administrator'),
  );
  const revoked = await iago.delete(`/invites/multiuse/${id}`);
  assertResponse('DELETE', `/invites/multiuse/${id}`, revoked.status, revoked.body);
  t.is(revoked.status, 200);
  t.deepEqual(await refusal(iago.delete(`/invites/multiuse/${id}`)), badRequest('Invitation has already been revoked'));
  t.deepEqual(await refusal(iago.delete('/invites/multiuse/9999')), badRequest('No such invitation'));
  t.false((await linksOf(iago)).some((i) => i.id === id));
  t.is((await openPage(link)).status, 404);
  t.is((await signUp(link, 'too-late@example.com', 'Too Late')).status, 404);
  const login = await server.client.post('/fetch_api_key', { username: 'too-late@example.com', password: 'x' });
  t.is(login.status, 401);
});

test.serial('an expired link is dead and unlisted', async (t) => {
  const { iago } = t.context;
  const link = await makeLink(iago, { invite_expires_in_minutes: 0 });
  t.false((await linksOf(iago)).some((i) => i.link_url === link));
  t.is((await openPage(link)).status, 404);
  const never = await makeLink(iago, { invite_expires_in_minutes: 'null' });
  t.is((await linksOf(iago)).find((i) => i.link_url === never)?.expiry_date, null);
});

test('who may make links, and as which role', async (t) => {
  const { iago, hamlet, polonius } = t.context;
  // create_multiuse_invite_group is administrators by default.
  t.deepEqual(await refusal(hamlet.post('/invites/multiuse', {})), badRequest('Insufficient permission'));
  t.deepEqual(await refusal(polonius.post('/invites/multiuse', {})), badRequest('Not allowed for guest users'));
  t.deepEqual(await refusal(iago.post('/invites/multiuse', { invite_as: 100 })), badRequest('Insufficient permission'));
  t.deepEqual(
    await refusal(iago.post('/invites/multiuse', { stream_ids: '[987654]' })),
    badRequest('Invalid channel ID 987654. No invites were sent.'),
  );
});
