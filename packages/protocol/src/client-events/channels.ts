/** Client events about channels, subscriptions and messages, in the reference's shapes (`GET /events`). */
import type { Reaction } from '../channel.js';

/** The reacting user; `api_email`, when set, is the address others see (email-visibility.ts). */
type Who = { user_id: number; email: string; api_email?: string; full_name: string };

export type ReactionEvent = { type: 'reaction'; op: 'add' | 'remove'; message_id: number; user: Who } & Pick<
  Reaction,
  keyof Reaction
>;
export const reactionEvent = (
  op: 'add' | 'remove',
  message_id: number,
  reaction: Reaction,
  who: Who,
): ReactionEvent => {
  const user = { user_id: who.user_id, email: who.api_email ?? who.email, full_name: who.full_name };
  return { type: 'reaction', op, message_id, ...reaction, user };
};

/** A submessage added to a message (`POST /submessage`): the original's `submessage` event. */
export type SubmessageEvent = {
  type: 'submessage';
  msg_type: string;
  message_id: number;
  submessage_id: number;
  sender_id: number;
  content: string;
};

/** Always bulk; the edge splits it for clients without `bulk_message_deletion`. */
export type DeleteMessageEvent =
  | { type: 'delete_message'; message_ids: number[]; message_type: 'private' }
  | { type: 'delete_message'; message_ids: number[]; message_type: 'stream'; stream_id: number; topic: string };
export const deletedPrivate = (message_ids: number[]): DeleteMessageEvent => ({
  type: 'delete_message',
  message_ids,
  message_type: 'private',
});
export const deletedInChannel = (message_ids: number[], stream_id: number, topic: string): DeleteMessageEvent => ({
  type: 'delete_message',
  message_ids,
  message_type: 'stream',
  stream_id,
  topic,
});

export type PeerEvent = {
  type: 'subscription';
  op: 'peer_add' | 'peer_remove';
  stream_ids: number[];
  user_ids: number[];
};
/** Who else is now (or no longer) subscribed to one channel. */
export const peerEvent = (op: 'peer_add' | 'peer_remove', stream_id: number, user_ids: number[]): PeerEvent => ({
  type: 'subscription',
  op,
  stream_ids: [stream_id],
  user_ids,
});

export type SubscriptionRemoveEvent = {
  type: 'subscription';
  op: 'remove';
  subscriptions: Array<{ stream_id: number; name: string }>;
};
export const subscriptionRemoved = (stream_id: number, name: string): SubscriptionRemoveEvent => ({
  type: 'subscription',
  op: 'remove',
  subscriptions: [{ stream_id, name }],
});

export type SubscriptionUpdateEvent = {
  type: 'subscription';
  op: 'update';
  stream_id: number;
  property: string;
  value: unknown;
};
export const subscriptionUpdated = (stream_id: number, property: string, value: unknown): SubscriptionUpdateEvent => ({
  type: 'subscription',
  op: 'update',
  stream_id,
  property,
  value,
});

/** `name` is the channel's name before the change; the extras travel with the properties the original pairs them with. */
export type StreamUpdateEvent = {
  type: 'stream';
  op: 'update';
  stream_id: number;
  name: string;
  property: string;
  value: unknown;
  rendered_description?: string;
  history_public_to_subscribers?: boolean;
  is_web_public?: boolean;
};
type StreamUpdateExtras = Pick<
  StreamUpdateEvent,
  'rendered_description' | 'history_public_to_subscribers' | 'is_web_public'
>;
export const streamUpdated = (
  channel: { stream_id: number; name: string },
  property: string,
  value: unknown,
  extras: StreamUpdateExtras = {},
): StreamUpdateEvent => ({
  type: 'stream',
  op: 'update',
  stream_id: channel.stream_id,
  name: channel.name,
  property,
  value,
  ...extras,
});

export type ChannelEvent =
  | ReactionEvent
  | SubmessageEvent
  | DeleteMessageEvent
  | PeerEvent
  | SubscriptionRemoveEvent
  | SubscriptionUpdateEvent
  | StreamUpdateEvent;
