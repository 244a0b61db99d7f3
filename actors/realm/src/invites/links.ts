import {
  ChatError,
  inGroupSetting,
  isGuest,
  mayInviteAs,
  mayManageAllInvites,
  mayManageInviteAs,
  mayWriteWelcomeMessage,
  type GroupSetting,
  type InviteCommand,
  type Principal,
} from '@chat/protocol';
import type { ActorContext, Decision } from '@chat/runtime';
import { organization } from '../settings.js';
import { checkInviteChannels } from './create.js';
import { checkInviteGroups } from './groups.js';
import type { InviteLink } from './state.js';
import { invitesChanged } from '../people.js';
import type { RealmEvent, RealmState } from '../state.js';

type Create = Extract<InviteCommand, { type: 'realm.createInviteLink' }>;
type Revoke = Extract<InviteCommand, { type: 'realm.revokeInviteLink' }>;

const bad = (msg: string) => new ChatError('BAD_REQUEST', msg);

/**
 * Reusable invitation links (the original's MultiuseInvite): made by those
 * in `create_multiuse_invite_group` (administrators by default), with the
 * same rules as e-mail invitations for the role, channels and groups.
 */
export function createInviteLink(ctx: ActorContext<RealmState>, cmd: Create): Decision<RealmEvent, { id: number }> {
  const state = ctx.state;
  const { inviter, options } = cmd;
  const allowed = organization(state).settings.create_multiuse_invite_group as GroupSetting;
  if (isGuest(inviter) || !inGroupSetting(allowed, inviter)) throw bad('Insufficient permission');
  if (!mayInviteAs(inviter, options.role)) throw bad('Insufficient permission');
  checkInviteChannels(state, inviter, options.stream_ids, cmd.channels);
  checkInviteGroups(state, inviter, options.group_ids);
  const now = Math.floor(ctx.now / 1000);
  const minutes = options.expires_in_minutes;
  const id = Math.max(0, ...Object.keys(state.inviteLinks ?? {}).map(Number)) + 1;
  const link: InviteLink = {
    id,
    invitedBy: inviter.user_id,
    invitedAt: now,
    expiresAt: minutes === null ? null : now + minutes * 60,
    role: options.role,
    streamIds: options.stream_ids,
    groupIds: options.group_ids,
    includeDefaults: options.include_realm_default_subscriptions,
    welcomeText: mayWriteWelcomeMessage(inviter) ? options.welcome_message_custom_text : null,
    key: cmd.key,
    keyHash: cmd.key_hash,
    revoked: false,
  };
  return {
    events: [{ type: 'inviteLinkCreated', link }],
    reply: { id },
    fanouts: [invitesChanged(state, inviter.user_id)],
  };
}

/** The original's revoke_multiuse_invite: its checks and messages, in its order. */
export function revokeInviteLink(ctx: ActorContext<RealmState>, cmd: Revoke): Decision<RealmEvent, null> {
  const state = ctx.state;
  const link = state.inviteLinks?.[cmd.invite_id];
  if (!link) throw bad('No such invitation');
  if (link.revoked) throw bad('Invitation has already been revoked');
  checkManages(cmd.actor, link);
  return {
    events: [{ type: 'inviteLinkRevoked', inviteId: link.id }],
    reply: null,
    fanouts: [invitesChanged(state, link.invitedBy)],
  };
}

function checkManages(actor: Principal, link: InviteLink): void {
  if (link.invitedBy !== actor.user_id && !mayManageAllInvites(actor)) {
    throw bad('Must be an organization administrator');
  }
  if (!mayManageInviteAs(actor, link.role)) throw bad('Must be an organization owner');
}

/** A link that still works: not revoked, not expired. */
export const isLive = (link: InviteLink, nowMs: number) =>
  !link.revoked && (link.expiresAt === null || link.expiresAt * 1000 > nowMs);
