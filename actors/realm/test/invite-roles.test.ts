import test from 'ava';
import { ROLES, type InviteOptions, type Role } from '@chat/protocol';
import { ADMIN, GUEST, MEMBER, MODERATOR, OWNER, principal, realm } from './fixtures.js';

type Kit = Awaited<ReturnType<typeof realm>>;

const options = (role: Role, changes: Partial<InviteOptions> = {}): InviteOptions => ({
  role,
  stream_ids: [],
  group_ids: [],
  include_realm_default_subscriptions: false,
  notify_referrer_on_join: false,
  welcome_message_custom_text: null,
  expires_in_minutes: 60,
  ...changes,
});

let invitee = 0;
const invite = (kit: Kit, inviter: number, role: Role, changes: Partial<InviteOptions> = {}) =>
  kit.run({
    type: 'realm.invite',
    inviter: principal(inviter),
    invitees: [{ email: `new${++invitee}@zulip.test`, key_hash: `hash${invitee}` }],
    options: options(role, changes),
    channels: [],
  });

const ALL = [ROLES.owner, ROLES.administrator, ROLES.moderator, ROLES.member, ROLES.guest];

test("an invitation grants the inviter's role or a weaker one, never a stronger one", async (t) => {
  const kit = await realm();
  for (const inviter of [OWNER, ADMIN, MODERATOR, MEMBER]) {
    const own = principal(inviter).role;
    for (const role of ALL) {
      const result = await invite(kit, inviter, role);
      if (role >= own) t.is(result.error, undefined, `${inviter} invites as ${role}`);
      else t.is(result.error?.message, 'Insufficient permission', `${inviter} may not invite as ${role}`);
    }
  }
});

test('guests never invite, not even guests', async (t) => {
  const kit = await realm();
  const result = await invite(kit, GUEST, ROLES.guest);
  t.is(result.error?.message, 'Insufficient permission');
  t.deepEqual(result.events, []);
});

test('accepting an invitation creates the account with the invited role', async (t) => {
  const kit = await realm();
  const invited = await invite(kit, ADMIN, ROLES.moderator);
  const hash = (invited.reply as { invited: Array<{ key_hash: string }> }).invited[0]!.key_hash;
  const accepted = await kit.run({ type: 'realm.acceptInvite', key_hash: hash, full_name: 'New', password_hash: 'x' });
  t.is((accepted.reply as { user: { role: number } }).user.role, ROLES.moderator);
});

test('an invitation to become an owner is managed by owners only', async (t) => {
  const kit = await realm();
  const invited = await invite(kit, OWNER, ROLES.owner);
  const id = (invited.reply as { invited: Array<{ id: number }> }).invited[0]!.id;
  const byAdmin = await kit.run({ type: 'realm.revokeInvite', actor: principal(ADMIN), invite_id: id });
  t.is(byAdmin.error?.message, 'Must be an organization owner');
  const hidden = await kit.run({ type: 'realm.resendInvite', actor: principal(ADMIN), invite_id: id, key_hash: 'h' });
  t.is(hidden.error?.message, 'Must be an organization owner');
  t.is((await kit.run({ type: 'realm.revokeInvite', actor: principal(OWNER), invite_id: id })).error, undefined);
});

test("only administrators' invitations keep a custom welcome message", async (t) => {
  const kit = await realm();
  const welcome = { welcome_message_custom_text: 'Welcome!' };
  const fromAdmin = await invite(kit, ADMIN, ROLES.member, welcome);
  const fromMember = await invite(kit, MEMBER, ROLES.member, welcome);
  const text = (r: typeof fromAdmin) =>
    r.events.flatMap((e) => (e.type === 'invitesCreated' ? e.invites.map((i) => i.welcomeText) : []));
  t.deepEqual(text(fromAdmin), ['Welcome!']);
  t.deepEqual(text(fromMember), [null]);
});
