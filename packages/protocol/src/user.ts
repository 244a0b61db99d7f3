/** The UserActor's contract: one person's private state. */
import type { IdRanges } from './channel.js';

export interface SubscriptionSettings {
  color: string;
  pin_to_top: boolean;
  is_muted: boolean;
  desktop_notifications: boolean | null;
  email_notifications: boolean | null;
  wildcard_mentions_notify: boolean | null;
  push_notifications: boolean | null;
  audible_notifications: boolean | null;
}
export type SubscriptionProperty = keyof SubscriptionSettings;

/** A direct-message conversation the user takes part in. */
export interface ConversationRef {
  key: string;
  user_ids: number[];
  max_message_id: number;
}

export interface UserTopic {
  stream_id: number;
  topic_name: string;
  visibility_policy: number;
  last_updated: number;
}

export const VISIBILITY = { inherit: 0, muted: 1, unmuted: 2, followed: 3 } as const;

/** What decides the user's flags in one conversation. */
export interface ReadState {
  read: IdRanges;
  starred: number[];
  unread_own: number[];
}

export interface UserSnapshot {
  /** Keyed by channel id. */
  subscriptions: Record<string, SubscriptionSettings>;
  /** Channels the user left. */
  unsubscribed: number[];
  conversations: ConversationRef[];
  /** Keyed by conversation actor key. */
  read: Record<string, IdRanges>;
  starred: number[];
  unread_own: number[];
  user_topics: UserTopic[];
}

export interface FlagTarget {
  id: number;
  /** The conversation actor's key. */
  key: string;
  own: boolean;
}

export type UserCommand =
  | { type: 'user.subscribed'; channel_id: number; last_message_id: number }
  | { type: 'user.unsubscribed'; channel_id: number }
  | { type: 'user.conversation'; key: string; user_ids: number[]; message_id: number }
  | { type: 'user.state' }
  /** Finds the conversations of messages by id: conversation key or null, by id. */
  | { type: 'user.locate'; ids: number[] }
  /** After the user sent a message: marks it read (or not) and applies automatic topic policies. */
  | {
      type: 'user.sent';
      key: string;
      message_id: number;
      read: boolean;
      topic?: { channel_id: number; topic: string; new_topic: boolean };
    }
  | { type: 'user.flags'; op: 'add' | 'remove'; flag: 'read' | 'starred'; messages: FlagTarget[] }
  | { type: 'user.setTopic'; channel_id: number; topic: string; visibility_policy: number }
  | { type: 'user.subscriptionProperty'; channel_id: number; property: SubscriptionProperty; value: unknown };
