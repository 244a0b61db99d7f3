import {
  deletedInChannel,
  deletedPrivate,
  streamCreateEvent,
  streamDeleteEvent,
  peerEvent,
  realmAddress,
  realmOfKey,
  type ChannelInfo,
  type ChannelSettings,
  type QueueEvent,
  type StoredMessage,
  participantsOfKey,
} from '@chat/protocol';
import type { Tell } from '@chat/runtime';
import { actionAudience, holdersOf } from './holders.js';
import { toUsers } from './members.js';
import { lastMessageId, type ChannelState } from './state.js';

/**
 * Who hears about a change in this conversation: a channel's subscribers, or
 * a direct message's participants. (A public channel's new messages also
 * reach non-subscribers' `all_public_streams` queues: see public-relay.ts.)
 */
export function audience(state: ChannelState, key: string): number[] {
  return state.kind === 'channel' ? state.members : (participantsOfKey(key) ?? []);
}

/**
 * The same events for the organization's users who see this channel without
 * being subscribed (`except`, who heard directly): the RealmActor knows them.
 */
export function toOnlookers(channel: ChannelSettings, key: string, events: QueueEvent[], except: number[]): Tell {
  // A private channel's: its administrators, and who knows of it through groups (the realm has its settings).
  const body = channel.invite_only
    ? { type: 'realm.broadcast' as const, events, to: 'administrators' as const, except, channel_id: channel.stream_id }
    : { type: 'realm.broadcast' as const, events, to: 'members' as const, except };
  return { to: realmAddress(realmOfKey(key)), body };
}

/**
 * `channel.knowledge`: who newly may know of the channel hears of it (`stream` create, then its
 * subscribers in a `peer_add`), who no longer may hears it is gone (`stream` delete); subscribers
 * knew of it anyway. Nothing changes here, so the events keep the realm's change as their origin.
 */
export function tellKnowledge(state: ChannelState, key: string, gained: number[], lost: number[]) {
  if (state.kind !== 'channel' || state.channel!.is_archived) return [];
  const id = state.channel!.stream_id;
  const outside = (ids: number[]) => ids.filter((u) => !state.members.includes(u));
  const subscribers = [...state.members].sort((a, b) => a - b);
  const created = [streamCreated(channelInfo(state)), peerEvent('peer_add', id, subscribers)];
  return [
    ...(outside(gained).length > 0 ? [fanout(key, outside(gained), created)] : []),
    ...(outside(lost).length > 0 ? [fanout(key, outside(lost), [streamDeleteEvent(id)])] : []),
  ];
}

/** `stream` op `create`; the edge renders each channel in the reference's shape. */
export const streamCreated = (info: ChannelInfo): QueueEvent => streamCreateEvent([info]);

/**
 * Tells users' actors of their activity in a channel topic (reacting, adding
 * to a widget, being mentioned), for their automatic topic policies; none
 * in a direct message.
 */
export function topicActivity(
  state: ChannelState,
  key: string,
  userIds: number[],
  topic: string,
  reason: 'participated' | 'mentioned',
) {
  if (state.kind !== 'channel' || userIds.length === 0) return [];
  return [toUsers(key, userIds, { type: 'user.topicActivity', channel_id: state.channel!.stream_id, topic, reason })];
}

/** One fan-out of events to users' actors, which pass them to their queues. */
export function fanout(key: string, userIds: number[], events: QueueEvent[]) {
  return toUsers(key, userIds, { type: 'user.deliver', events });
}

/** A message as its event carries it; each recipient's UserActor fills in the flags. */
export function messageForEvent(state: ChannelState, key: string, message: StoredMessage) {
  return {
    ...message,
    channel_id: state.channel?.stream_id ?? null,
    channel_name: state.channel?.name ?? null,
    dm_user_ids: state.kind === 'channel' ? [] : (participantsOfKey(key) ?? []),
    flags: [] as string[],
  };
}

/** Who has a message (the original's UserMessage rows): see holders.ts. */
export const sentTo = holdersOf;

/**
 * Who hears of a reaction to or deletion of `messages` (see
 * `actionAudience`), plus whoever acted: the original always tells the
 * actor, even an administrator who is not subscribed.
 */
export function receivers(state: ChannelState, key: string, messages: StoredMessage[], actorId: number): number[] {
  return [...new Set([...actionAudience(state, key, messages), actorId])];
}

/** Always bulk; the edge splits it for clients without `bulk_message_deletion`. */
export function deleteEvent(state: ChannelState, messages: StoredMessage[]): QueueEvent {
  const ids = messages.map((m) => m.id).sort((a, b) => a - b);
  if (state.kind !== 'channel') return deletedPrivate(ids);
  return deletedInChannel(ids, state.channel!.stream_id, messages[0]!.topic);
}

/** The channel as `channel.info` answers, with `members` as its subscribers (after a change not yet applied). */
export function channelInfo(state: ChannelState, members = state.members): ChannelInfo {
  return {
    ...state.channel!,
    subscribers: members,
    first_message_id: state.messages[0]?.id ?? null,
    last_message_id: state.messages.length > 0 ? lastMessageId(state) : null,
  };
}
