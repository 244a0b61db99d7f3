/**
 * The ChannelActor's contract. One actor holds one conversation: a channel
 * (key `realm:id`) or a direct-message conversation (key `realm:dm:ids`),
 * with its members and its messages.
 */
import { SYSTEM_GROUPS, type GroupSetting, type Member } from './groups.js';
import type { Principal, RealmSettings, UserRef } from './realm.js';
import type { QueueEvent } from './queue.js';
import type { RealmUserAddEvent } from './client-events/users.js';
import type { MoveCommand, MoveReplies } from './move.js';
import type { ProtocolOf } from './contract.js';

export type TopicsPolicy = 'inherit' | 'allow_empty_topic' | 'disable_empty_topic' | 'empty_topic_only';

export const CHANNEL_PERMISSIONS = [
  'can_add_subscribers_group',
  'can_remove_subscribers_group',
  'can_administer_channel_group',
  'can_delete_any_message_group',
  'can_delete_own_message_group',
  'can_move_messages_out_of_channel_group',
  'can_move_messages_within_channel_group',
  'can_send_message_group',
  'can_subscribe_group',
  'can_resolve_topics_group',
] as const;
export type ChannelPermission = (typeof CHANNEL_PERMISSIONS)[number];
export type ChannelPermissions = Record<ChannelPermission, GroupSetting>;
/** Channel permissions the original never lets name `role:everyone` (no channel permission takes `role:internet`). */
export const CHANNEL_PERMISSIONS_NOT_FOR_EVERYONE: readonly ChannelPermission[] = [
  'can_add_subscribers_group',
  'can_administer_channel_group',
  'can_subscribe_group',
];

/**
 * The deprecated `stream_post_policy` the original still sends, read from
 * `can_send_message_group`: 2 administrators, 3 full members, 4 moderators,
 * and 1 (anyone) for every other value, anonymous groups included.
 * `is_announcement_only` is it being 2.
 */
export function streamPostPolicy(canSend: GroupSetting): number {
  if (canSend === SYSTEM_GROUPS['role:administrators']) return 2;
  if (canSend === SYSTEM_GROUPS['role:fullmembers']) return 3;
  if (canSend === SYSTEM_GROUPS['role:moderators']) return 4;
  return 1;
}

export interface ChannelSettings extends ChannelPermissions {
  stream_id: number;
  name: string;
  description: string;
  rendered_description: string;
  /** Epoch seconds. */
  date_created: number;
  creator_id: number | null;
  invite_only: boolean;
  is_web_public: boolean;
  history_public_to_subscribers: boolean;
  /** Days; null inherits the realm's setting, -1 keeps forever. */
  message_retention_days: number | null;
  is_archived: boolean;
  folder_id: number | null;
  topics_policy: TopicsPolicy;
}

export interface ChannelInfo extends ChannelSettings {
  subscribers: number[];
  first_message_id: number | null;
  /** Id of the newest message, or null. */
  last_message_id: number | null;
}

export interface Reaction {
  emoji_name: string;
  emoji_code: string;
  reaction_type: 'unicode_emoji' | 'realm_emoji' | 'zulip_extra_emoji';
  user_id: number;
}

/**
 * A submessage (widgets: polls, todo lists), in the reference's shape. Its id
 * is the message's id times SUBMESSAGES_PER_MESSAGE plus its place on the
 * message, so ids are unique in the realm and grow on each message.
 */
export interface Submessage {
  id: number;
  message_id: number;
  sender_id: number;
  msg_type: string;
  /** JSON text, as the client sent it. */
  content: string;
}

export const SUBMESSAGES_PER_MESSAGE = 1_000_000;

/** One entry of a message's edit history (what the history endpoint shows). */
export interface MessageEdit {
  timestamp: number;
  user_id: number | null;
  prev_content?: string;
  prev_rendered_content?: string;
  prev_topic?: string;
  prev_stream?: number;
  topic?: string;
  stream?: number;
}

/** What rendering found in a message's content. */
export interface ContentFacts {
  mentioned_user_ids: number[];
  mentioned_group_ids: number[];
  channel_wildcard: boolean;
  topic_wildcard: boolean;
  has_link: boolean;
  has_image: boolean;
  has_attachment: boolean;
  upload_paths: string[];
}

/** Content as the edge prepared it: raw Markdown, its HTML and what it mentions. */
export interface PreparedContent extends ContentFacts {
  content: string;
  rendered: string;
  /** Users in the mentioned groups (resolved by the realm), for the mentioned flag. */
  group_member_ids: number[];
  /** Active humans mentioned by name (not silently), who may follow the topic; not stored. */
  mentioned_human_ids?: number[];
}

export interface StoredMessage extends ContentFacts {
  id: number;
  sender_id: number;
  /** Epoch seconds. */
  timestamp: number;
  topic: string;
  content: string;
  rendered: string;
  client: string;
  group_member_ids: number[];
  reactions: Reaction[];
  /** Oldest first; absent when there are none. */
  submessages?: Submessage[];
  edits: MessageEdit[];
  last_edit_timestamp: number | null;
  last_moved_timestamp: number | null;
  /**
   * Subscribers of a protected-history channel when the message was moved in:
   * they see it although it is older than their joining (absent otherwise).
   */
  granted_to?: number[];
  /**
   * Who has the message (the original's UserMessage rows), named on a
   * message moved in from another channel, where joining dates do not say
   * it (absent otherwise: see actors/channel/src/holders.ts).
   */
  holders?: number[];
  /** Of `holders`, those whose row is historical (they acted on the message without having it). */
  historical?: number[];
}

/** A message as a viewer sees it: where it lives and the viewer's flags. */
export interface ViewedMessage extends StoredMessage {
  channel_id: number | null;
  channel_name: string | null;
  /** Participants of a direct message, the sender included; [] for channel messages. */
  dm_user_ids: number[];
  flags: string[];
  /** With a search narrow: content and topic with the matched words marked. */
  match_content?: string;
  match_subject?: string;
}

/**
 * What an `update_message` event carries (and each recipient's UserActor
 * strips) so that it can fill in the recipient's `flags` for the message.
 */
export interface EditFlagFacts {
  key: string;
  sender_id: number;
  is_channel: boolean;
  mentioned_user_ids: number[];
  group_member_ids: number[];
  channel_wildcard: boolean;
  topic_wildcard: boolean;
  topic_participants: number[];
}

/** Inclusive ranges [from, to] of message ids. */
export type IdRanges = Array<[number, number]>;

/** Who is reading, with the personal state that decides flags. */
export interface Viewer extends Member {
  role: number;
  /** Ids the viewer has read in this conversation. */
  read: IdRanges;
  /** Ids the viewer starred (in any conversation). */
  starred: number[];
  /** Own messages the viewer marked unread. */
  unread_own: number[];
  /** Messages that arrived with one of the viewer's alert words. */
  alerted?: number[];
}

export interface FetchResult {
  messages: ViewedMessage[];
  /** The anchor's position was reached at the end of history in each direction. */
  found_oldest: boolean;
  found_newest: boolean;
  found_anchor: boolean;
  /** The conversation's newest message id when it was read (0: none); ids grow within a conversation. */
  newest_id: number;
}

export type EditPropagation = 'change_one' | 'change_later' | 'change_all';

/** A message to send, as the edge prepared it. */
export type SendCommand = {
  type: 'message.send';
  sender: Principal;
  topic: string;
  prepared: PreparedContent;
  settings: RealmSettings;
  wildcard_threshold: number;
  client: string;
  /** For the message event: the sender and the participants of a direct message. */
  people: UserRef[];
  read_by_sender: boolean;
  /** Recipients who get it already read (the original's `mark_as_read`: a new channel's notices, for its creator). */
  mark_read?: number[];
  local?: { queue_id: string; local_id: string };
  /** An automated notice of the realm's notification bot, which may post anywhere (set by the edge only). */
  internal?: boolean;
  /** The request's `widget_content` (JSON text), checked by the ChannelActor. */
  widget_content?: string;
  /** A direct message's: by restricted guest, the adds his `user.conversation` carries (`access`). */
  access?: Array<{ user_id: number; events: RealmUserAddEvent[] }>;
};

export type ChannelCommand =
  /** `color`: the new subscribers' color, when they asked for one. */
  | { type: 'channel.create'; channel: ChannelSettings; subscribers: number[]; color?: string }
  /** With a viewer, refused unless the viewer may see the channel's metadata. */
  | { type: 'channel.info'; viewer?: Principal }
  | {
      type: 'channel.subscribe';
      actor: Principal | null;
      users: UserRef[];
      settings: RealmSettings;
      color?: string;
      /**
       * Events a present subscriber gets in the same delivery as, and before,
       * the `peer_add` (a restricted guest's `realm_user` adds of the people
       * subscribing, as the original sends them first).
       */
      first?: Array<{ user_id: number; events: QueueEvent[] }>;
    }
  | { type: 'channel.unsubscribe'; actor: Principal; users: UserRef[] }
  | {
      type: 'channel.update';
      actor: Principal;
      changes: ChannelChanges;
      settings: RealmSettings;
      dry_run: boolean;
      /** Only the archive operation may set `is_archived`. */
      archive?: boolean;
      /** The channel is the realm's moderation request channel, which must stay private. */
      moderation_request_channel?: boolean;
    }
  | SendCommand
  /** What `message.send` would refuse, refused without sending: a scheduled message is checked when made. */
  | { type: 'message.checkSend'; send: SendCommand }
  | {
      type: 'message.fetch';
      viewer: Viewer;
      /** Narrow terms as `@chat/narrow` resolves them. */
      narrow: unknown[];
      anchor: number;
      num_before: number;
      num_after: number;
      include_anchor: boolean;
    }
  | { type: 'message.get'; viewer: Viewer; ids: number[] }
  /** The ids among `ids` that match the narrow, with their highlighted content and topic. */
  | { type: 'message.match'; viewer: Viewer; ids: number[]; narrow: unknown[] }
  /** The oldest message the viewer has not read, or null. */
  | { type: 'message.firstUnread'; viewer: Viewer }
  | {
      type: 'message.edit';
      actor: Principal;
      message_id: number;
      prepared?: PreparedContent;
      topic?: string;
      propagate_mode: EditPropagation;
      prev_content_sha256?: string;
      notify_old: boolean;
      notify_new: boolean;
      settings: RealmSettings;
      wildcard_threshold: number;
    }
  | { type: 'message.delete'; actor: Principal; message_id: number; settings: RealmSettings }
  | { type: 'topic.delete'; actor: Principal; topic: string; batch: number }
  | ({ type: 'reaction.add' } & ReactionChange)
  | ({ type: 'reaction.remove' } & ReactionChange)
  | { type: 'topic.list'; viewer: Principal }
  | { type: 'submessage.add'; actor: Principal; message_id: number; msg_type: string; content: string }
  /** Who has a message the actor may see (the original's UserMessage rows): for read receipts. */
  | { type: 'message.holders'; actor: Principal; message_id: number }
  /**
   * The actor stars or marks unread these messages: those they do not have
   * get a historical row, as in the original; the answer names them.
   */
  | { type: 'message.historical'; actor: Principal; message_ids: number[] }
  /** The user's role changed: whether they are a guest now, for a channel they left (see holders.ts). */
  | { type: 'channel.guestRole'; user_id: number; guest: boolean }
  /**
   * From the RealmActor: who newly may know of the channel without being subscribed (their groups now
   * grant it, or its privacy changed), and who no longer may. The channel tells those not subscribed
   * (`stream` create and `peer_add`, or `stream` delete), changing nothing of its own.
   */
  | { type: 'channel.knowledge'; gained: number[]; lost: number[] }
  /** From the RealmActor: tell it the channel's flags and settings, for a directory entry kept without them. */
  | { type: 'channel.report' }
  /** How many messages the conversation holds (a data export's size check). */
  | { type: 'channel.messageCount' }
  | MoveCommand;

export type ReactionChange = { actor: Principal; message_id: number; reaction: Reaction };

/** The reply to `message.send`: the new message's id, and whether it opened its topic. */
export type SendReply = { id: number; new_topic: boolean };

/** The reply to `message.edit`. */
export type EditReply = {
  /** Every message whose topic changed, the edited one included. */
  moved_ids: number[];
  old_topic: string;
  /** The change only resolved or unresolved the topic. */
  resolved: boolean;
  /** Upload paths the new content no longer names. */
  detached_upload_paths: string[];
};

/** The reply to `message.match`, by message id. */
export type MatchReply = Record<string, { match_content: string; match_subject: string }>;

/** A topic with its newest message the viewer can see. */
export type TopicSummary = { name: string; max_id: number };

export type ChannelReplies = MoveReplies & {
  'channel.create': null;
  'channel.info': ChannelInfo;
  'channel.subscribe': { added: number[]; already: number[] };
  'channel.unsubscribe': { removed: number[]; not_subscribed: number[] };
  /** Nothing, also when `dry_run` found the change allowed. */
  'channel.update': null;
  'message.send': SendReply;
  'message.checkSend': null;
  'message.fetch': FetchResult;
  'message.get': ViewedMessage[];
  'message.match': MatchReply;
  'message.firstUnread': number | null;
  'message.edit': EditReply;
  /** The deleted message's topic. */
  'message.delete': { topic: string };
  'topic.delete': { complete: boolean; deleted: number[] };
  'reaction.add': null;
  'reaction.remove': null;
  'submessage.add': null;
  'message.holders': number[];
  'message.historical': number[];
  'channel.guestRole': null;
  'channel.knowledge': null;
  'channel.report': null;
  'channel.messageCount': number;
  /** Newest first. */
  'topic.list': TopicSummary[];
};

/** The ChannelActor's protocol table. */
export type ChannelProtocol = ProtocolOf<ChannelCommand, ChannelReplies>;

export type ChannelChanges = Partial<
  Pick<
    ChannelSettings,
    | 'name'
    | 'description'
    | 'rendered_description'
    | 'invite_only'
    | 'is_web_public'
    | 'history_public_to_subscribers'
    | 'message_retention_days'
    | 'is_archived'
    | 'folder_id'
    | 'topics_policy'
  >
> & { permissions?: Partial<Record<ChannelPermission, { new: GroupSetting; old?: GroupSetting }>> };

/** A new channel's permissions when its creator does not choose: the realm's settings decide the rest. */
export function defaultChannelPermissions(creatorId: number | null): ChannelPermissions {
  const nobody = SYSTEM_GROUPS['role:nobody'];
  return {
    can_add_subscribers_group: nobody,
    can_remove_subscribers_group: SYSTEM_GROUPS['role:administrators'],
    can_administer_channel_group: { direct_members: creatorId === null ? [] : [creatorId], direct_subgroups: [] },
    can_delete_any_message_group: nobody,
    can_delete_own_message_group: nobody,
    can_move_messages_out_of_channel_group: nobody,
    can_move_messages_within_channel_group: nobody,
    can_send_message_group: SYSTEM_GROUPS['role:everyone'],
    can_subscribe_group: nobody,
    can_resolve_topics_group: nobody,
  };
}
