import {
  ChatError,
  inGroupSetting,
  isAdministrator,
  mayAdministerChannel,
  mayReadChannel,
  maySeeAllChannels,
  type ChannelPermission,
  type Person,
} from '@chat/protocol';
import { holds } from './holders.js';
import type { ChannelState } from './state.js';
import type { StoredMessage } from '@chat/protocol';

/** Someone acting on the conversation: an id, a role and their groups. */
export type Actor = Person;

// Role rules live in @chat/protocol (permissions.ts); this file applies them to the conversation's state.
export const isMember = (state: ChannelState, userId: number) => state.members.includes(userId);

/** The original answers the same for "no such channel" and "not yours to see", so nothing leaks. */
export const invalidChannel = () => new ChatError('BAD_REQUEST', 'Invalid channel ID');
export const invalidMessage = () => new ChatError('BAD_REQUEST', 'Invalid message(s)');
export const notAllowed = (msg = 'Insufficient permission') => new ChatError('BAD_REQUEST', msg);

export function can(state: ChannelState, permission: ChannelPermission, who: Actor): boolean {
  return state.channel !== null && inGroupSetting(state.channel[permission], who);
}

/** Whether `who` may read the conversation's messages at all (a channel's: `mayReadChannel`, web-public and group grants included). */
export function hasContentAccess(state: ChannelState, who: Actor): boolean {
  if (state.kind !== 'channel') return isMember(state, who.user_id);
  return mayReadChannel(who, state.channel!, isMember(state, who.user_id));
}

/**
 * Whether `who` may know the channel exists and see its settings and subscribers
 * (the original's `user_has_metadata_access`): content access, administrators,
 * and non-guests in its `can_administer_channel_group`.
 */
export function hasMetadataAccess(state: ChannelState, who: Actor): boolean {
  if (hasContentAccess(state, who)) return true;
  return state.kind === 'channel' && (maySeeAllChannels(who) || canAdminister(state, who));
}

/** `mayAdministerChannel`: administrators, and non-guests in `can_administer_channel_group`. */
export function canAdminister(state: ChannelState, who: Actor): boolean {
  return isAdministrator(who) || (state.channel !== null && mayAdministerChannel(who, state.channel));
}

/**
 * Private channels with protected history show a subscriber only what they
 * have (the original's UserMessage rows: what came after joining, see holders.ts).
 */
export function canSee(state: ChannelState, who: Actor, message: StoredMessage): boolean {
  const channel = state.channel;
  if (!channel || !channel.invite_only || channel.history_public_to_subscribers) return true;
  return isMember(state, who.user_id) && holds(state, who.user_id, message);
}

export function requireContentAccess(state: ChannelState, who: Actor): void {
  if (state.kind === 'none' || !hasContentAccess(state, who)) throw invalidChannel();
}

/**
 * For operations that name a message by id: a message in a conversation the
 * caller cannot read answers as a message that does not exist (the
 * original's `access_message`), so its id does not tell that it exists.
 */
export function requireMessageAccess(state: ChannelState, who: Actor): void {
  if (state.kind === 'none' || !hasContentAccess(state, who)) throw invalidMessage();
}
