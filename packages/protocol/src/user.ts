/** The UserActor's contract: one person's private state. */
import type { ChannelInfo, IdRanges } from './channel.js';
import type { QueueEvent } from './queue.js';
import type { RealmUserAddEvent } from './client-events/users.js';
import type { PersonalCommand, PersonalReplies } from './personal.js';
import type { MutingCommand, MutingReplies } from './muting.js';
import type { ScheduledCommand, ScheduledReplies } from './scheduled.js';
import type { SettingsCommand, SettingsReplies } from './settings.js';
import type { MovedReadCommand, MovedReadReplies } from './move.js';
import type { ProtocolOf } from './contract.js';

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

/** A new subscription's personal settings. */
export function newSubscription(color: string): SubscriptionSettings {
  return {
    color,
    pin_to_top: false,
    is_muted: false,
    desktop_notifications: null,
    email_notifications: null,
    wildcard_mentions_notify: null,
    push_notifications: null,
    audible_notifications: null,
  };
}

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
  /** Messages that arrived with one of the user's alert words (absent before alert words). */
  alerted?: number[];
  /** Ids of the users the user muted (absent before muting). */
  muted_user_ids?: number[];
}

export interface FlagTarget {
  id: number;
  /** The conversation actor's key. */
  key: string;
  own: boolean;
}

/** The reference's `message_details` entry of an `update_message_flags` remove event. */
export interface MessageDetail {
  type: 'stream' | 'private';
  mentioned?: boolean;
  user_ids?: number[];
  stream_id?: number;
  topic?: string;
}

export type UserCommand =
  /** With `channel` (the channel after the change), the user's queues hear `subscription` op `add`. */
  /** `color`: the one the subscriber asked for; otherwise the next of the palette. */
  | { type: 'user.subscribed'; channel_id: number; last_message_id: number; channel?: ChannelInfo; color?: string }
  /** Raises the `subscription remove` event here, where the snapshot reads subscriptions from. */
  | { type: 'user.unsubscribed'; channel_id: number; name: string }
  /**
   * A direct-message conversation the user takes part in, newest message `message_id`. `access`: a
   * restricted guest's `realm_user` adds of its other people; he hears of those he may not yet access when
   * the conversation is new to him (`actors/user/src/direct-access.ts`).
   */
  | { type: 'user.conversation'; key: string; user_ids: number[]; message_id: number; access?: RealmUserAddEvent[] }
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
  /** `details` (by message id) is what an unread event tells clients about each message. */
  | {
      type: 'user.flags';
      op: 'add' | 'remove';
      flag: 'read' | 'starred';
      messages: FlagTarget[];
      details?: Record<string, MessageDetail>;
      /** Of `messages`, those that just got a historical row (the channel said): a starred one reads as read. */
      historical?: number[];
    }
  | { type: 'user.setTopic'; channel_id: number; topic: string; visibility_policy: number }
  /** The user reacted or added to a widget in a channel topic, or was mentioned there: the automatic policies. */
  | { type: 'user.topicActivity'; channel_id: number; topic: string; reason: 'participated' | 'mentioned' }
  | { type: 'user.subscriptionProperty'; channel_id: number; property: SubscriptionProperty; value: unknown }
  /** The user's event queues: deliveries reach each of them. */
  | { type: 'user.addQueue'; queue_id: string; all_public_streams?: boolean }
  | { type: 'user.removeQueue'; queue_id: string }
  /** Events for this user (one fan-out to many users): personalized, then passed to each queue. */
  | { type: 'user.deliver'; events: QueueEvent[] }
  /** A public channel's message events the user did not receive: for the `all_public_streams` queues only. */
  | { type: 'user.deliverPublic'; events: QueueEvent[] }
  /**
   * A channel message the user counts read, with no event to their queues: a
   * historical row (reacting to a message they did not have), or a message
   * sent read for them (`mark_read`, whose event already says so).
   */
  | { type: 'user.historical'; key: string; message_id: number }
  | AttachmentCommand
  | PersonalCommand
  | MutingCommand
  | ScheduledCommand
  | SettingsCommand
  | MovedReadCommand;

/** The reply to `user.sent`: the automatic topic policy the send applied, if any. */
export type SentReply = { automatic_new_visibility_policy?: number };

export type UserReplies = PersonalReplies &
  MutingReplies &
  ScheduledReplies &
  SettingsReplies &
  MovedReadReplies &
  AttachmentReplies & {
    'user.subscribed': null;
    'user.unsubscribed': null;
    'user.conversation': null;
    'user.state': UserSnapshot;
    /** The conversation actor key of each message, or null, by message id. */
    'user.locate': Record<string, string | null>;
    'user.sent': SentReply;
    /** The ids whose flag this changed. */
    'user.flags': { messages: number[] };
    'user.setTopic': null;
    'user.topicActivity': null;
    'user.subscriptionProperty': null;
    /** For an `all_public_streams` queue, the number of the user's listener change it made (`realm.publicListener`). */
    'user.addQueue': { public_seq: number } | null;
    'user.removeQueue': null;
    'user.historical': null;
    'user.deliver': null;
    'user.deliverPublic': null;
  };

/** The UserActor's protocol table. */
export type UserProtocol = ProtocolOf<UserCommand, UserReplies>;

/** A file a user uploaded, in the reference's `Attachment` shape. */
export interface Attachment {
  id: number;
  name: string;
  /** `realm_id/xx/random/file-name`; the file's URL is `/user_uploads/<path_id>`. */
  path_id: string;
  size: number;
  /** Milliseconds. */
  create_time: number;
  messages: Array<{ id: number; date_sent: number }>;
}

/** A message linking an upload: the conversation is what decides who may read it. */
export interface AttachmentLink {
  message_id: number;
  /** The conversation actor's key. */
  key: string;
}

/**
 * Which user owns an upload path: a store row per path, written by the
 * owner's UserActor, so a download (which only has the path) finds the
 * actor to ask. One partition per realm, which also sums the realm's use.
 */
export const attachmentOwnerKey = (realm: string, pathId: string) => ({
  table: 'attachment_owner',
  partition: realm,
  sort: pathId,
});

/** What an attachment_owner row holds. */
export interface AttachmentOwnerRow {
  owner: number;
  size: number;
}

export type AttachmentReplies = {
  'user.uploaded': Attachment;
  'user.findUpload': { owner: number } | null;
  'user.attachmentLinks': AttachmentLink[] | null;
  /** The user's attachments among `unlinked` that no message links any more. */
  'user.claimAttachments': { detached: Attachment[] };
  'user.attachments': { attachments: Attachment[]; upload_space_used: number };
  'user.deleteAttachment': { path_id: string };
};

/** Commands of the uploads feature, kept apart so the main union stays readable. */
export type AttachmentCommand =
  /** Records a file the user just stored; replies the new attachment. */
  | { type: 'user.uploaded'; path_id: string; name: string; size: number }
  /** Reads the owner row of a path (any user's actor may, for its user): `{owner}` or null. */
  | { type: 'user.findUpload'; path_id: string }
  /** The messages linking one of the user's uploads, or null if it is not theirs. */
  | { type: 'user.attachmentLinks'; path_id: string }
  /**
   * A message of the user now links `paths` and no longer links `unlinked`
   * (an edit). Paths the user does not own are ignored. Replies the user's
   * attachments among `unlinked` that no message links any more.
   */
  | {
      type: 'user.claimAttachments';
      message_id: number;
      key: string;
      date_sent: number;
      paths: string[];
      unlinked?: string[];
    }
  /** The user's attachments and the realm's total upload size. */
  | { type: 'user.attachments' }
  /** Forgets one of the user's attachments; replies its path so the edge can delete the file. */
  | { type: 'user.deleteAttachment'; attachment_id: number };

export type AttachmentProtocol = ProtocolOf<AttachmentCommand, AttachmentReplies>;
