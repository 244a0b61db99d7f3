import { SYSTEM_GROUPS } from '@chat/protocol';
import { assertResponse, type ChatClient } from '@chat/testkit';
import { channelId, withServer } from './context.js';
import { mailsTo, type Body } from './invite-support.js';
import { newPerson } from './people.js';
import { register } from './queues.js';
import { bodyOf, refused } from './replies.js';

/** Every failure of `POST /invites` the spec lists, with its code, its fields, and nothing mailed. */
const test = withServer(['iago', 'hamlet', 'othello', 'polonius', 'shiva', 'desdemona']);

async function invite(client: ChatClient, params: Body) {
  const reply = await client.post('/invites', { stream_ids: '[]', ...params });
  assertResponse('POST', '/invites', reply.status, reply.body);
  return reply;
}

test('guests may not invite', async (t) => {
  const { server, hamlet, polonius } = t.context;
  const reply = await invite(polonius, { invitee_emails: 'guest-invite@example.com' });
  // The original's invite_users_backend is require_member_or_admin, which answers guests first.
  await refused(t, reply, 'Not allowed for guest users');
  t.is((await mailsTo(server, 'guest-invite@example.com')).length, 0);
  // Clients learn who may invite from the register snapshot: members, the original's default (role:members).
  const { snapshot } = await register(hamlet, { fetch_event_types: ['realm'] });
  t.is(snapshot.realm_can_invite_users_group, 3);
});

test('roles are limited by the inviter’s own role', async (t) => {
  const { iago } = t.context;
  const cases: Array<['hamlet' | 'shiva' | 'iago' | 'desdemona', number, boolean]> = [
    ['hamlet', 200, false],
    ['hamlet', 300, false],
    ['hamlet', 600, true],
    ['shiva', 200, false],
    ['shiva', 300, true],
    ['iago', 100, false],
    ['iago', 200, true],
    ['desdemona', 100, true],
  ];
  for (const [who, role, allowed] of cases) {
    const reply = await invite(t.context[who], { invitee_emails: `${who}-as-${role}@example.com`, invite_as: role });
    if (allowed) t.is(reply.status, 200, `${who} inviting as ${role}`);
    else await refused(t, reply, 'Insufficient permission');
  }
  await refused(t, await invite(iago, { invitee_emails: 'x@example.com', invite_as: 250 }), 'Invalid invite_as');
});

test('at least one address is needed', async (t) => {
  const { hamlet } = t.context;
  for (const raw of ['', ' , \n ']) {
    const reply = await invite(hamlet, { invitee_emails: raw });
    await refused(t, reply, 'You must specify at least one email address.');
  }
});

test('an unknown or inaccessible channel sends nothing', async (t) => {
  const { server, iago, hamlet, othello } = t.context;
  const unknown = await invite(hamlet, { invitee_emails: 'nochannel@example.com', stream_ids: '[99999]' });
  await refused(t, unknown, 'Invalid channel ID 99999. No invites were sent.');
  // othello is not in the private "core team": for him it does not exist.
  const core = await channelId(iago, 'core team');
  const hidden = await invite(othello, {
    invitee_emails: 'hidden@example.com',
    stream_ids: JSON.stringify([core]),
  });
  await refused(t, hidden, `Invalid channel ID ${core}. No invites were sent.`);
  t.is((await mailsTo(server, 'nochannel@example.com')).length, 0);
  t.is((await mailsTo(server, 'hidden@example.com')).length, 0);
  const listed = await iago.get<{ invites: Array<{ email: string }> }>('/invites');
  t.false(listed.body.invites.some((i) => ['nochannel@example.com', 'hidden@example.com'].includes(i.email)));
});

let made = 0;
/** A channel made by `who` with only `who` subscribed. */
async function channelOf(who: ChatClient, invite_only: boolean): Promise<number> {
  const me = (await bodyOf<{ user_id: number }>(who.get('/users/me'))).user_id;
  const name = `invited ${++made} ${Date.now() % 100000}`;
  return (await bodyOf<{ id: number }>(who.post('/channels/create', { name, subscribers: [me], invite_only }))).id;
}

// Serial: it narrows the realm's can_add_subscribers_group, then puts it back.
test.serial(
  'the channels are judged as access_streams_for_invite: each readable, then each open to new subscribers',
  async (t) => {
    const { iago, hamlet } = t.context;
    const [open, fallback, granted, archived] = await Promise.all(
      [false, false, false, false].map(() => channelOf(iago, false)),
    );
    await bodyOf(iago.post('/default_streams', { stream_id: fallback }));
    const hamletId = (await bodyOf<{ user_id: number }>(hamlet.get('/users/me'))).user_id;
    const onlyHamlet = JSON.stringify({ new: { direct_members: [hamletId], direct_subgroups: [] } });
    await bodyOf(iago.patch(`/streams/${granted}`, { can_add_subscribers_group: onlyHamlet }));
    await bodyOf(iago.delete(`/streams/${archived}`));
    const to = (client: ChatClient, ids: number[], email: string) =>
      invite(client, { invitee_emails: email, stream_ids: JSON.stringify(ids) });
    const realmSetting = (group: number) =>
      iago.patch('/realm', { can_add_subscribers_group: JSON.stringify({ new: group }) });
    await bodyOf(realmSetting(SYSTEM_GROUPS['role:administrators']));
    try {
      // Every channel is looked up before anyone's right to add subscribers is.
      await refused(
        t,
        await to(hamlet, [open, 99999], 'order@example.com'),
        'Invalid channel ID 99999. No invites were sent.',
      );
      await refused(
        t,
        await to(hamlet, [open], 'plain@example.com'),
        'You do not have permission to subscribe other users to channels.',
      );
      // A default channel, or one whose own group takes Hamlet, is open to him all the same.
      t.is((await to(hamlet, [fallback, granted], 'granted@example.com')).status, 200);
    } finally {
      await bodyOf(realmSetting(SYSTEM_GROUPS['role:members']));
    }
    // An archived channel is not one to invite to (access_stream_by_id requires an active channel).
    await refused(
      t,
      await to(iago, [archived], 'archived@example.com'),
      `Invalid channel ID ${archived}. No invites were sent.`,
    );
    // Administering the realm gives no content access: a private channel one is not in is unknown.
    const bob = await newPerson(t.context, 'Bob Invite');
    const secret = await channelOf(bob.client, true);
    await refused(
      t,
      await to(iago, [secret], 'secret@example.com'),
      `Invalid channel ID ${secret}. No invites were sent.`,
    );
    for (const email of ['order@example.com', 'plain@example.com', 'archived@example.com', 'secret@example.com']) {
      t.is((await mailsTo(t.context.server, email)).length, 0, email);
    }
  },
);

test('stream_ids is required, and may be empty', async (t) => {
  const { hamlet } = t.context;
  const reply = await hamlet.post('/invites', { invitee_emails: 'nostreams@example.com' });
  t.is(reply.status, 400);
  t.like(reply.body, { code: 'REQUEST_VARIABLE_MISSING', var_name: 'stream_ids' });
  t.is((await invite(hamlet, { invitee_emails: 'nostreams@example.com' })).status, 200);
});

test('addresses that all have accounts invite nobody', async (t) => {
  const reply = await invite(t.context.hamlet, { invitee_emails: 'othello@zulip.com,IAGO@zulip.com' });
  t.is(reply.status, 400);
  t.like(reply.body, {
    code: 'INVITATION_FAILED',
    msg: "We weren't able to invite anyone.",
    sent_invitations: false,
    license_limit_reached: false,
    daily_limit_reached: false,
  });
  t.deepEqual(reply.body.errors, [
    ['othello@zulip.com', 'Already has an account.', false],
    ['IAGO@zulip.com', 'Already has an account.', false],
  ]);
});

test('an invalid address stops the whole request', async (t) => {
  const { server, hamlet } = t.context;
  const reply = await invite(hamlet, { invitee_emails: 'fine@example.com, not-an-address' });
  t.is(reply.status, 400);
  t.like(reply.body, { code: 'INVITATION_FAILED', sent_invitations: false });
  t.deepEqual(reply.body.errors, [['not-an-address', 'Invalid address.', false]]);
  t.is((await mailsTo(server, 'fine@example.com')).length, 0);
});

test('the welcome text has a limit', async (t) => {
  const reply = await invite(t.context.iago, {
    invitee_emails: 'long@example.com',
    welcome_message_custom_text: 'x'.repeat(8001),
  });
  t.is(reply.status, 400);
  t.like(reply.body, { code: 'BAD_REQUEST', msg: 'welcome_message_custom_text is too long (limit: 8000 characters)' });
  t.is(
    (
      await invite(t.context.iago, {
        invitee_emails: 'long@example.com',
        welcome_message_custom_text: 'x'.repeat(8000),
      })
    ).status,
    200,
  );
});

test('groups must exist, be active, and take members from the inviter', async (t) => {
  const { server, iago, hamlet } = t.context;
  const iagoGroup = await iago.post<{ group_id: number }>('/user_groups/create', {
    name: 'iago only',
    description: 'Only its creator adds members',
    members: '[]',
  });
  const retired = await iago.post<{ group_id: number }>('/user_groups/create', {
    name: 'retired',
    description: 'Deactivated below',
    members: '[]',
  });
  t.is((await iago.post(`/user_groups/${retired.body.group_id}/deactivate`)).status, 200);
  const cases: Array<[ChatClient, number, string]> = [
    [hamlet, 99999, 'Invalid user group'],
    [hamlet, 3, 'Insufficient permission'],
    [hamlet, iagoGroup.body.group_id, 'Insufficient permission'],
    [iago, retired.body.group_id, 'User group is deactivated.'],
  ];
  for (const [client, group, msg] of cases) {
    const reply = await invite(client, { invitee_emails: 'grouped@example.com', group_ids: JSON.stringify([group]) });
    await refused(t, reply, msg);
  }
  t.is((await mailsTo(server, 'grouped@example.com')).length, 0);
  const ok = await invite(iago, {
    invitee_emails: 'grouped@example.com',
    group_ids: JSON.stringify([iagoGroup.body.group_id]),
  });
  t.is(ok.status, 200);
});
