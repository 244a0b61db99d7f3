import type { ProtocolOf } from './contract.js';
import type { Principal } from './realm.js';

/**
 * Bots: accounts owned by a person (`POST /bots`), kept by the RealmActor
 * with the other accounts. Their storage (`/bot_storage`) is kept by the
 * bot's own UserActor.
 */

/** The original's bot types. Embedded bots need a server setting this server does not have. */
export const BOT_TYPES = { generic: 1, incoming_webhook: 2, outgoing_webhook: 3, embedded: 4 } as const;

/** How an outgoing webhook bot's service is called: the original's Zulip (1) and Slack-compatible (2) formats. */
export const INTERFACE_TYPES = { generic: 1, slack: 2 } as const;

/** An outgoing webhook bot's service, as `realm_bots` shows it. */
export interface BotService {
  base_url: string;
  interface: number;
  token: string;
}

/** What a new bot is made of, checked by the edge where it needs the caller's view (channels). */
export interface NewBot {
  full_name: string;
  short_name: string;
  bot_type: number;
  /** Outgoing webhook bots: where messages that trigger the bot are POSTed ('' until set). */
  payload_url: string;
  interface_type: number;
  /** Channel ids, or null. */
  default_sending_stream_id: number | null;
  default_events_register_stream_id: number | null;
  default_all_public_streams: boolean;
}

/** A bot as `realm_bots` and `realm_bot` events show it (the edge adds `avatar_url`). */
export interface BotJson {
  email: string;
  user_id: number;
  full_name: string;
  bot_type: number;
  is_active: boolean;
  api_key: string;
  default_sending_stream: string | null;
  default_events_register_stream: string | null;
  default_all_public_streams: boolean;
  owner_id: number | null;
  services: BotService[];
  avatar_version: number;
  /** Set when an avatar was uploaded; else the edge shows the gravatar. */
  avatar_url?: string;
}

/** The changes of `PATCH /bots/{bot_id}`; absent fields stay. */
export interface BotChanges {
  full_name?: string;
  role?: number;
  bot_owner_id?: number;
  service_payload_url?: string;
  service_interface?: number;
  /** Channel id, or null to clear. */
  default_sending_stream_id?: number | null;
  default_events_register_stream_id?: number | null;
  default_all_public_streams?: boolean;
}

/** An outgoing webhook bot's service, for delivering a message that triggers it. */
export interface OutgoingService extends BotService {
  user_id: number;
  email: string;
  full_name: string;
  /** The bot, to send its answers as. */
  principal: Principal;
  /** Its owner's id: failures are reported to the owner. */
  owner_id: number | null;
}

/** A call to an outgoing webhook bot that is owed: recorded before it is made, removed once it is done. */
export interface OwedWebhook {
  message_id: number;
  bot_id: number;
  trigger: 'mention' | 'direct_message';
  /** Epoch ms when it was recorded. */
  since: number;
}

export type BotCommand =
  /** `POST /bots`; `domain` is the server's host (bots' addresses are `<short_name>-bot@<domain>`). Replies BotJson. */
  | { type: 'realm.createBot'; actor: Principal; bot: NewBot; domain: string }
  /** `realm_bots` (`all`: administrators get every bot) or `GET /bots` (the caller's active bots). Replies BotJson[]. */
  | { type: 'realm.bots'; actor: Principal; scope: 'administered' | 'owned' }
  /** Replies the bot as it now is. */
  | { type: 'realm.updateBot'; actor: Principal; bot_id: number; changes: BotChanges }
  | { type: 'realm.deactivateBot'; actor: Principal; bot_id: number }
  /** Replies `{api_key}`. */
  | { type: 'realm.regenerateBotKey'; actor: Principal; bot_id: number }
  /**
   * A new avatar for the actor or a bot they administer: `file` is the uploaded image's name
   * (already in the file port), null for the gravatar. Replies the new URL and the file it replaced.
   */
  | { type: 'realm.setAvatar'; actor: Principal; user_id: number; file: string | null }
  /** The services of these users that are active outgoing webhook bots. Replies OutgoingService[]. */
  | { type: 'realm.outgoingServices'; user_ids: number[] }
  /** Records calls owed before they are made. Replies null. */
  | { type: 'realm.oweWebhooks'; owed: Array<Omit<OwedWebhook, 'since'>> }
  /** A call is done (answered, or given up and reported). Replies null. */
  | { type: 'realm.webhookDone'; message_id: number; bot_id: number }
  /**
   * Claims the owed calls recorded (or last claimed) before `before` (epoch ms):
   * they are stamped now, so no other edge claims them while the claimant calls.
   */
  | { type: 'realm.claimOwedWebhooks'; before: number }
  /**
   * Every realm that owes calls, read from the store's index (`OWING_REALMS`,
   * shared by all realms, so any realm actor can answer). Replies their string ids.
   */
  | { type: 'realm.owingRealms' };

export type BotReplies = {
  'realm.createBot': BotJson;
  'realm.bots': BotJson[];
  'realm.updateBot': { bot: BotJson; owner_email: string | null };
  'realm.deactivateBot': null;
  'realm.regenerateBotKey': { api_key: string };
  'realm.setAvatar': { avatar_url: string; previous: string | null };
  'realm.outgoingServices': OutgoingService[];
  'realm.oweWebhooks': null;
  'realm.webhookDone': null;
  'realm.claimOwedWebhooks': OwedWebhook[];
  'realm.owingRealms': string[];
};

/** The original's cap on one bot's storage: keys and values, in characters. */
export const BOT_STORAGE_LIMIT = 10_000_000;

export type BotStorageReplies = {
  'user.botStorage': { storage: Record<string, string> };
  'user.putBotStorage': null;
  'user.removeBotStorage': null;
};

export type BotStorageCommand =
  /** Replies `{storage}`; `keys` absent: every key. */
  | { type: 'user.botStorage'; keys?: string[] }
  | { type: 'user.putBotStorage'; entries: Record<string, string> }
  | { type: 'user.removeBotStorage'; keys?: string[] };

export type BotProtocol = ProtocolOf<BotCommand, BotReplies>;

export type BotStorageProtocol = ProtocolOf<BotStorageCommand, BotStorageReplies>;
