import {
  ChatError,
  mayManageAllInvites,
  mayManageInviteAs,
  secretsEqual,
  type AcceptedInvite,
  type InviteCommand,
  type InviteJson,
  type Principal,
} from '@chat/protocol';
import type { ActorContext, Decision } from '@chat/runtime';
import { accountByEmail, newAccount, toCreated } from '../behavior.js';
import type { EmailCommand } from '../accounts/email-change.js';
import { createInvites } from './create.js';
import { createInviteLink, isLive, revokeInviteLink } from './links.js';
import { VALID_EMAIL } from '../accounts/email-change.js';
import { isExpired, type Invite, type InviteEvent, type InviteLink } from './state.js';
import { joinInviteGroups } from './groups.js';
import { invitesChanged, usersAdded } from '../people.js';
import type { RealmEvent, RealmState } from '../state.js';
import { startingSettings } from '../settings.js';
import type { RealmHandlers } from '../state.js';
import type { InviteProtocol } from '@chat/protocol';

type Ctx = ActorContext<RealmState>;

const bad = (msg: string) => new ChatError('BAD_REQUEST', msg);
const noSuchInvite = () => bad('No such invitation');
export const expiredLink = () => bad('Whoops. The confirmation link has expired or been deactivated.');

/** A new account spends every invitation to its address, as in the original. */
export function spentInvites(state: RealmState, email: string): InviteEvent[] {
  return Object.values(state.invites ?? {})
    .filter((i) => i.email.toLowerCase() === email.toLowerCase())
    .map((i) => ({ type: 'inviteRemoved', inviteId: i.id }));
}

export function inviteJson(invite: Invite): InviteJson {
  return {
    id: invite.id,
    invited_by_user_id: invite.invitedBy,
    invited: invite.invitedAt,
    expiry_date: invite.expiresAt,
    invited_as: invite.role,
    email: invite.email,
    notify_referrer_on_join: invite.notifyReferrer,
    is_multiuse: false,
  };
}

/** An unexpired invitation the actor may manage, as the original's `access_invite_by_id`. */
function manageable(state: RealmState, actor: Principal, id: number, now: number): Invite {
  const invite = state.invites?.[id];
  if (!invite || isExpired(invite.expiresAt, now)) throw noSuchInvite();
  if (invite.invitedBy !== actor.user_id && !mayManageAllInvites(actor))
    throw bad('Must be an organization administrator');
  if (!mayManageInviteAs(actor, invite.role)) throw bad('Must be an organization owner');
  return invite;
}

function byKey(state: RealmState, keyHash: string, now: number): Invite {
  // Only hashes are compared, but in constant time all the same, as every secret.
  const invite = Object.values(state.invites ?? {}).find((i) => secretsEqual(i.keyHash, keyHash));
  if (!invite || isExpired(invite.expiresAt, now)) throw expiredLink();
  return invite;
}

/** The live reusable link a key names, if any. */
function linkByKey(state: RealmState, keyHash: string, now: number): InviteLink | undefined {
  const link = Object.values(state.inviteLinks ?? {}).find((l) => secretsEqual(l.keyHash, keyHash));
  if (link && !isLive(link, now)) throw expiredLink();
  return link;
}

/** What joining needs of either kind of invitation. */
function invitationOf(state: RealmState, cmd: Extract<InviteCommand, { type: 'realm.acceptInvite' }>, now: number) {
  const link = linkByKey(state, cmd.key_hash, now);
  if (!link) {
    const invite = byKey(state, cmd.key_hash, now);
    return { ...invite, email: invite.email };
  }
  const email = (cmd.email ?? '').trim();
  if (!VALID_EMAIL.test(email)) throw bad('Please enter a valid email address.');
  // A link tells nobody when someone joins by it (the original's multi-use invitations do not either).
  return { ...link, email, notifyReferrer: false };
}

function accept(
  ctx: Ctx,
  cmd: Extract<InviteCommand, { type: 'realm.acceptInvite' }>,
): Decision<RealmEvent, AcceptedInvite> {
  const state = ctx.state;
  const invite = invitationOf(state, cmd, ctx.now);
  if (accountByEmail(state, invite.email)) throw bad('Already has an account.');
  const user = { email: invite.email, full_name: cmd.full_name, role: invite.role, password_hash: cmd.password_hash };
  const account = newAccount(state, user, state.nextUserId, ctx.now);
  const defaults = invite.includeDefaults
    ? Object.values(state.channels)
        .filter((c) => c.is_default && !c.is_archived)
        .map((c) => c.channel_id)
    : [];
  const groups = joinInviteGroups(state, account, invite.groupIds);
  const reply: AcceptedInvite = {
    user: toCreated(account),
    referrer_id: invite.invitedBy,
    notify_referrer_on_join: invite.notifyReferrer,
    stream_ids: [...new Set([...invite.streamIds, ...defaults])],
    group_ids: groups.joined,
    welcome_message_custom_text: invite.welcomeText,
  };
  return {
    events: [{ type: 'accountCreated', account }, ...spentInvites(state, invite.email), ...groups.events],
    reply,
    tells: startingSettings(state, [account]),
    // The new account first, so that clients know the user the group changes name.
    fanouts: [...usersAdded(state, [account]), ...groups.fanouts, invitesChanged(state, invite.invitedBy)],
  };
}

export const inviteHandlers: RealmHandlers<Omit<InviteProtocol, EmailCommand['type']>> = {
  'realm.invite': (ctx, command) => {
    return createInvites(ctx, command);
  },
  'realm.invites': (ctx, command) => {
    const state = ctx.state;
    const mine = (i: Invite | InviteLink) =>
      mayManageAllInvites(command.viewer) || i.invitedBy === command.viewer.user_id;
    const list = Object.values(state.invites ?? {}).filter((i) => mine(i) && !isExpired(i.expiresAt, ctx.now));
    const links = Object.values(state.inviteLinks ?? {}).filter((l) => mine(l) && isLive(l, ctx.now));
    const linkJson = (l: InviteLink): InviteJson => ({
      id: l.id,
      invited_by_user_id: l.invitedBy,
      invited: l.invitedAt,
      expiry_date: l.expiresAt,
      invited_as: l.role,
      is_multiuse: true,
      link_key: l.key,
    });
    const byId = (a: { id: number }, b: { id: number }) => a.id - b.id;
    return { reply: [...list.sort(byId).map(inviteJson), ...links.sort(byId).map(linkJson)] };
  },
  'realm.revokeInvite': (ctx, command) => {
    const state = ctx.state;
    const invite = manageable(state, command.actor, command.invite_id, ctx.now);
    const events: RealmEvent[] = [{ type: 'inviteRemoved', inviteId: invite.id }];
    return { events, reply: null, fanouts: [invitesChanged(state, invite.invitedBy)] };
  },
  'realm.resendInvite': (ctx, command) => {
    const state = ctx.state;
    const invite = manageable(state, command.actor, command.invite_id, ctx.now);
    const now = Math.floor(ctx.now / 1000);
    const expiresAt = invite.validMinutes === null ? null : now + invite.validMinutes * 60;
    const renewed = {
      type: 'inviteRenewed' as const,
      inviteId: invite.id,
      keyHash: command.key_hash,
      invitedAt: now,
      expiresAt,
    };
    const reply = {
      email: invite.email,
      referrer_name: state.accounts[invite.invitedBy]?.fullName ?? '',
      expiry_date: expiresAt,
    };
    return { events: [renewed], reply, fanouts: [invitesChanged(state, invite.invitedBy)] };
  },
  'realm.createInviteLink': (ctx, command) => createInviteLink(ctx, command),
  'realm.revokeInviteLink': (ctx, command) => revokeInviteLink(ctx, command),
  'realm.inviteByKey': (ctx, command) => {
    const state = ctx.state;
    const link = linkByKey(state, command.key_hash, ctx.now);
    if (link) {
      const referrer_name = state.accounts[link.invitedBy]?.fullName ?? '';
      return { reply: { email: '', realm_name: state.name, referrer_name, multiuse: true } };
    }
    const invite = byKey(state, command.key_hash, ctx.now);
    return {
      reply: {
        email: invite.email,
        realm_name: state.name,
        referrer_name: state.accounts[invite.invitedBy]?.fullName ?? '',
      },
    };
  },
  'realm.acceptInvite': (ctx, command) => {
    return accept(ctx, command);
  },
};
