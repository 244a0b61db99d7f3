import type { ProtocolOf } from './contract.js';
/**
 * Statuses and presence: the RealmActor keeps both, because clients read
 * every user's at once (register, presence polls).
 */

export type ReactionType = 'unicode_emoji' | 'realm_emoji' | 'zulip_extra_emoji';

/** The reference's `UserStatus`: only the keys that are set. */
export interface UserStatusJson {
  away?: boolean;
  status_text?: string;
  emoji_name?: string;
  emoji_code?: string;
  reaction_type?: ReactionType;
}

/** A status emoji, checked by the edge; an empty name clears it. */
export interface StatusEmoji {
  emoji_name: string;
  emoji_code: string;
  reaction_type: ReactionType;
}

/** The reference's modern presence format. */
export interface ModernPresence {
  active_timestamp: number;
  idle_timestamp: number;
}

/** The reference's legacy presence format, by client name (`website`, `aggregated`). */
export interface LegacyPresence {
  client: string;
  status: 'active' | 'idle';
  timestamp: number;
  pushable?: boolean;
}

export type PresenceQuery = {
  /** Modern format, keyed by user id; otherwise legacy, keyed by e-mail. */
  slim: boolean;
  /** Only what changed after this id; `history_limit_days` applies when it is absent or not positive. */
  last_update_id?: number;
  history_limit_days?: number;
};

export interface PresenceReply {
  presences: Record<string, ModernPresence | Record<string, LegacyPresence>>;
  presence_last_update_id: number;
  server_timestamp: number;
}

export type StatusReplies = {
  'realm.setStatus': null;
  'realm.userStatus': UserStatusJson;
  /** By user id. */
  'realm.statuses': Record<string, UserStatusJson>;
  /** The names of the fields that changed. */
  'realm.updateAccount': { changed: string[] };
  'realm.presenceEnabled': null;
  'realm.reportPresence': null;
  'realm.presences': PresenceReply;
  /** By client name. */
  'realm.userPresence': Record<string, LegacyPresence>;
  'realm.recentlyActive': number[];
};

export type StatusCommand =
  /** Changes only what is given; replies nothing. */
  | {
      type: 'realm.setStatus';
      user_id: number;
      status_text?: string;
      emoji?: StatusEmoji;
      away?: boolean;
    }
  | { type: 'realm.userStatus'; user_id: number }
  /** Every user who has a status: user id -> status. */
  | { type: 'realm.statuses' }
  /** Changes the user's name, time zone or password hash; replies the fields that changed. */
  | { type: 'realm.updateAccount'; user_id: number; full_name?: string; timezone?: string; password_hash?: string }
  /** Follows the user's `presence_enabled` setting: invisible users have no presence for others. */
  | { type: 'realm.presenceEnabled'; user_id: number; enabled: boolean }
  /** Coming online is announced to everyone only while the realm has at most `event_user_limit` active users. */
  | { type: 'realm.reportPresence'; user_id: number; status: 'active' | 'idle'; event_user_limit: number }
  | ({ type: 'realm.presences' } & PresenceQuery)
  /** One user's presence in the legacy format; by id or e-mail. */
  | { type: 'realm.userPresence'; user: number | string }
  /**
   * The active bots and the users a client last said were active at most `days` days ago, sharing their
   * presence (the original's recent UserActivityInterval): who a big channel's `partial_subscribers` lists.
   */
  | { type: 'realm.recentlyActive'; days: number };

export type StatusProtocol = ProtocolOf<StatusCommand, StatusReplies>;
