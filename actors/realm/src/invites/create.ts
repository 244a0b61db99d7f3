import {
  ChatError,
  inGroupSetting,
  isAdministrator,
  mayInviteAs,
  mayInviteUsers,
  mayWriteWelcomeMessage,
  type InviteCommand,
  type InviteResult,
} from '@chat/protocol';
import type { ActorContext, Decision } from '@chat/runtime';
import { accountByEmail } from '../behavior.js';
import { VALID_EMAIL } from '../accounts/email-change.js';
import { checkInviteGroups } from './groups.js';
import { isExpired, type Invite, type InviteEvent } from './state.js';
import { invitesChanged } from '../people.js';
import type { RealmEvent, RealmState } from '../state.js';

type Invitation = Extract<InviteCommand, { type: 'realm.invite' }>;

const bad = (msg: string) => new ChatError('BAD_REQUEST', msg);

/** INVITATION_FAILED with every field the original sends. */
function invitationFailed(msg: string, errors: Array<[string, string, boolean]>, sent: boolean) {
  return new ChatError('INVITATION_FAILED', msg, {
    errors,
    sent_invitations: sent,
    license_limit_reached: false,
    daily_limit_reached: false,
  });
}

/** The checks of the original, in its order: who may invite, to which role, where to, then the addresses. */
function checkInvitation(state: RealmState, cmd: Invitation): void {
  const { inviter, options } = cmd;
  const settings = state.settings;
  if (!mayInviteUsers(inviter, settings.can_invite_users_group)) {
    throw bad('Insufficient permission');
  }
  if (!mayInviteAs(inviter, options.role)) throw bad('Insufficient permission');
  if (cmd.invitees.length === 0) throw bad('You must specify at least one email address.');
  checkInviteChannels(state, inviter, options.stream_ids, cmd.channels);
  checkInviteGroups(state, inviter, options.group_ids);
  const invalid = cmd.invitees.filter((i) => !VALID_EMAIL.test(i.email));
  if (invalid.length > 0) {
    const errors = invalid.map((i): [string, string, boolean] => [i.email, 'Invalid address.', false]);
    throw invitationFailed("Some emails did not validate, so we didn't send any invitations.", errors, false);
  }
}

/**
 * The channels an invitation subscribes its user to, judged as the original's access_streams_for_invite:
 * first each must be an active channel the inviter can read, then he must be allowed to add subscribers
 * to each: everywhere (the realm's `can_add_subscribers_group`, or an administrator), to a default
 * channel, or through the channel's own groups.
 */
export function checkInviteChannels(
  state: RealmState,
  inviter: Invitation['inviter'],
  streamIds: number[],
  channels: Invitation['channels'],
): void {
  const judged = streamIds.map((id) => {
    const entry = state.channels[id];
    const check = channels.find((c) => c.channel_id === id);
    if (!entry || entry.is_archived || !check?.visible) throw bad(`Invalid channel ID ${id}. No invites were sent.`);
    return entry.is_default || check.may_add_subscribers;
  });
  const everywhere = isAdministrator(inviter) || inGroupSetting(state.settings.can_add_subscribers_group, inviter);
  if (!everywhere && judged.includes(false)) {
    throw bad('You do not have permission to subscribe other users to channels.');
  }
}

/** Records the invitations `POST /invites` asks for; the edge mails them. */
export function createInvites(ctx: ActorContext<RealmState>, cmd: Invitation): Decision<RealmEvent, InviteResult> {
  const state = ctx.state;
  checkInvitation(state, cmd);
  const { inviter, options } = cmd;
  const skipped: InviteResult['skipped'] = [];
  const fresh = cmd.invitees.filter(({ email }) => {
    const account = accountByEmail(state, email);
    if (account)
      skipped.push([
        email,
        account.isActive ? 'Already has an account.' : 'Account has been deactivated.',
        !account.isActive,
      ]);
    return !account;
  });
  if (fresh.length === 0) throw invitationFailed("We weren't able to invite anyone.", skipped, false);
  const now = Math.floor(ctx.now / 1000);
  const minutes = options.expires_in_minutes;
  let nextId = state.nextInviteId ?? 1;
  const invites: Invite[] = fresh.map(({ email, key_hash }) => ({
    id: nextId++,
    email,
    invitedBy: inviter.user_id,
    invitedAt: now,
    expiresAt: minutes === null ? null : now + minutes * 60,
    validMinutes: minutes,
    role: options.role,
    streamIds: options.stream_ids,
    groupIds: options.group_ids,
    includeDefaults: options.include_realm_default_subscriptions,
    notifyReferrer: options.notify_referrer_on_join,
    welcomeText: mayWriteWelcomeMessage(inviter) ? options.welcome_message_custom_text : null,
    keyHash: key_hash,
  }));
  // Expired invitations are dropped whenever new ones are made, so state does not grow forever.
  const expired = Object.values(state.invites ?? {}).filter((i) => isExpired(i.expiresAt, ctx.now));
  const events: InviteEvent[] = [
    ...expired.map((i) => ({ type: 'inviteRemoved' as const, inviteId: i.id })),
    { type: 'invitesCreated', invites },
  ];
  const invited = invites.map((i) => ({ id: i.id, email: i.email, key_hash: i.keyHash, expiry_date: i.expiresAt }));
  const reply: InviteResult = { invited, skipped };
  return { events, reply, fanouts: [invitesChanged(state, inviter.user_id)] };
}
