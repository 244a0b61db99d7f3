import type { EmojiCommand, EmojiReplies } from './emoji.js';
import type { FolderCommand, FolderReplies } from './folders.js';
import type { AuthMethod, RealmSettingsCommand, RealmSettingsReplies } from './realm-settings.js';
import type { UserAdminCommand, UserAdminReplies } from './user-admin.js';
import type { DefaultChannelCommand, DefaultChannelReplies } from './default-channels.js';
import type { PlaygroundCommand, PlaygroundReplies } from './playgrounds.js';
import type { LinkifierCommand, LinkifierReplies } from './linkifiers.js';
import type { ProfileFieldCommand, ProfileFieldReplies, ProfileValue } from './profile-fields.js';
import type { GroupCommand, GroupReplies, GroupSetting } from './groups.js';
import type { InviteCommand, InviteReplies } from './invites.js';
import type { ExportCommand, ExportReplies } from './exports.js';
import type { StatusCommand, StatusReplies } from './status.js';
import type { ProtocolOf } from './contract.js';
import type { BotReplies } from './bots.js';
import type { QueueEvent } from './queue.js';
import type { WireError } from './errors.js';
import type { BotCommand } from './bots.js';
import type { SessionCommand, SessionReplies } from './sessions.js';
import type { ChannelPermissions } from './channel.js';

/**
 * The RealmActor's contract: the commands edges and tools send it and the
 * replies they get. Field names follow the API where the value reaches a
 * client unchanged.
 */
export const ROLES = { owner: 100, administrator: 200, moderator: 300, member: 400, guest: 600 } as const;
export type Role = (typeof ROLES)[keyof typeof ROLES];
export const isRole = (value: unknown): value is Role => Object.values(ROLES).includes(value as Role);

/** Bot types of the original server: generic, incoming webhook, outgoing webhook, embedded. */
export type BotType = 1 | 2 | 3 | 4;

export interface NewUser {
  email: string;
  full_name: string;
  role: Role;
  /** Produced by `hashPassword`; absent for accounts that never set one. */
  password_hash?: string;
  bot_type?: BotType;
  bot_owner_id?: number;
  timezone?: string;
  /** The original's `can_create_users` permission: with administrator rights, POST /users. */
  can_create_users?: boolean;
  /** The original's `can_change_user_emails` permission: with administrator rights, `new_email` of PATCH /users/{id}. */
  can_change_user_emails?: boolean;
}

/** The most accounts one `realm.createUsers` takes: keeps its journal record and its fan-out bounded. */
export const MAX_USERS_PER_BATCH = 1000;

export interface UserProfile {
  user_id: number;
  email: string;
  /** The real address; the edge shows it only to those `seesAddress` admits (email-visibility.ts). */
  delivery_email: string;
  /** The user's `email_address_visibility`; absent: everyone. */
  email_address_visibility?: number;
  full_name: string;
  /** ISO 8601, as the API shows it. */
  date_joined: string;
  is_active: boolean;
  role: Role;
  is_bot: boolean;
  bot_type: BotType | null;
  bot_owner_id: number | null;
  timezone: string;
  avatar_version: number;
  /** Set when an avatar was uploaded (`avatar_source` "U"); else the gravatar. */
  avatar_url?: string;
  /** Custom profile field values by field id (absent for bots and while none is set). */
  profile_data?: Record<string, ProfileValue>;
}

/** The reply to account creation: the creator hands the key over (as bot creation does). */
export interface CreatedUser extends UserProfile {
  api_key: string;
}

export interface RealmInfo {
  id: number;
  string_id: string;
  name: string;
  description: string;
  development: boolean;
  web_public_access_enabled: boolean;
  date_created: number;
  /** Whether each way to log in is on (`authentication_methods`; "Dev" counts only where offered). */
  authentication: Record<AuthMethod, boolean>;
}

/** Who is calling, as the edge learns it from authentication. */
export interface Principal {
  realm: string;
  user_id: number;
  /** The real address, which authenticates; others see `api_email` when set (email-visibility.ts). */
  email: string;
  /** The placeholder address while the user hides the real one, and the real one's gravatar. */
  api_email?: string;
  gravatar_url?: string;
  role: Role;
  is_bot: boolean;
  /** The bot's type (bots.ts BOT_TYPES); absent or null for people. */
  bot_type?: BotType | null;
  full_name: string;
  /** Every group that contains the user, system groups included: what permissions are checked against. */
  groups: number[];
  /** The account's `can_create_users` permission (POST /users), granted by the operator. */
  can_create_users: boolean;
  /** A digest of the realm's linkifiers; absent while it has none, so rendering need not ask for them. */
  linkifiers_version?: string;
}

/** The organization settings that decide what messaging operations may do. */
export interface RealmSettings {
  allow_message_editing: boolean;
  /** Which edits message objects show in `edit_history`: `all`, `moves_only` or `none`. */
  message_edit_history_visibility_policy: string;
  /** Seconds; null: no limit. */
  message_content_edit_limit_seconds: number | null;
  /** How long senders may delete their own messages; null: no limit. */
  message_content_delete_limit_seconds: number | null;
  move_messages_within_stream_limit_seconds: number | null;
  move_messages_between_streams_limit_seconds: number | null;
  topics_policy: 'allow_empty_topic' | 'disable_empty_topic';
  /** How clients show the empty topic; also accepted as a topic name meaning the empty topic. */
  empty_topic_display_name: string;
  /** Days; -1 keeps messages forever. */
  message_retention_days: number;
  enable_spectator_access: boolean;
  /** Whether read receipts are available at all (each user's `send_read_receipts` decides theirs). */
  enable_read_receipts: boolean;
  can_mention_many_users_group: GroupSetting;
  can_move_messages_between_channels_group: GroupSetting;
  can_move_messages_between_topics_group: GroupSetting;
  can_resolve_topics_group: GroupSetting;
  can_delete_any_message_group: GroupSetting;
  can_delete_own_message_group: GroupSetting;
  can_create_public_channel_group: GroupSetting;
  can_create_private_channel_group: GroupSetting;
  can_create_web_public_channel_group: GroupSetting;
  can_add_subscribers_group: GroupSetting;
  /** Who may create user groups. */
  can_create_groups: GroupSetting;
  /** Who may manage every user group (administrators always may). */
  can_manage_all_groups: GroupSetting;
  /** Who may send e-mail invitations (guests never may). */
  can_invite_users_group: GroupSetting;
  /** Who may create bots of every type. */
  can_create_bots_group: GroupSetting;
  /** Who may create incoming webhook bots, besides `can_create_bots_group`. */
  can_create_write_only_bots_group: GroupSetting;
  /** A direct message needs one of these among its sender and recipients. */
  direct_message_permission_group: GroupSetting;
  /** Who may start a direct-message conversation (anyone may answer one). */
  direct_message_initiator_group: GroupSetting;
  /** Who may access every user: `role:everyone`, or `role:members`, which restricts guests (users/access.ts at the edge). */
  can_access_all_users_group: GroupSetting;
}

/** A channel as the realm's directory knows it: enough to list and find channels without asking each one. */
export interface ChannelEntry {
  channel_id: number;
  name: string;
  invite_only: boolean;
  is_web_public: boolean;
  is_archived: boolean;
  is_default: boolean;
  /** The channel's folder, as its ChannelActor last reported it (for folder archiving). */
  folder_id?: number | null;
  /**
   * The channel's group settings, as its ChannelActor last reported them: who may know of a private
   * channel through their groups (`knowsThroughGroups`) and which groups are in use. Absent in
   * entries written before they were kept.
   */
  permissions?: ChannelPermissions;
  /**
   * The journal position of the channel's change this entry last took in (its report's origin): reports
   * apply in the channel's order, and a reader of the directory holds the channel's changes up to it.
   * Absent until the channel first reports a change.
   */
  position?: number;
}

/**
 * `realm.channelGrants`: one's role, and the private channels one's groups let one know of (`metadata`)
 * and read (`content`), as the realm has them now (authentication may have seen an older role).
 */
export interface ChannelGrants {
  role: number;
  metadata: number[];
  content: number[];
  /** Every channel's entry, when asked (`channels`): read at the same position as the rest. */
  channels?: ChannelEntry[];
}

/** A user as other operations need to see them (mentions, recipients, principals). */
export interface UserRef {
  user_id: number;
  /** The API address (the placeholder while the user hides the real one). */
  email: string;
  /** Set while the user hides the address: the gravatar of the real one, which `email` cannot give. */
  gravatar_url?: string;
  full_name: string;
  role: Role;
  is_bot: boolean;
  is_active: boolean;
  bot_owner_id: number | null;
}

/** Names and addresses an operation needs turned into ids, in one round trip. */
export interface ResolveQuery {
  emails?: string[];
  user_ids?: number[];
  /** Full names, compared case-insensitively; a name can match several users. */
  user_names?: string[];
  group_names?: string[];
  channel_names?: string[];
  /** The sender: each group then says whether they may mention it. */
  mentioner_id?: number;
}

export interface Resolved {
  users: UserRef[];
  /** `members`: everyone in the group, through subgroups too (for the mentioned flag). */
  groups: Array<{ id: number; name: string; members?: number[]; can_mention?: boolean }>;
  channels: ChannelEntry[];
}

export interface ApiKeyGrant {
  api_key: string;
  email: string;
  user_id: number;
}

/** One check of `realm.authenticateMany`: the principal, or why not. */
export type AuthenticateResult = { principal: Principal } | { error: WireError };

/** The permissions only the operator grants (`change-user-role`); `realm.setCanCreateUsers` sets either. */
export type SpecialPermission = 'can_create_users' | 'can_change_user_emails';

/** The reply to `realm.setCanCreateUsers`: both permissions as they now are, and whether the one named changed. */
export interface CanCreateUsersGrant {
  email: string;
  user_id: number;
  can_create_users: boolean;
  can_change_user_emails: boolean;
  changed: boolean;
}

export type RealmCommand =
  | {
      type: 'realm.create';
      name: string;
      description: string;
      /** Only a server in development mode sends true. */
      development: boolean;
      web_public_access_enabled?: boolean;
      /** Organization settings that differ from a new organization's defaults. */
      settings?: Partial<RealmSettings>;
      /** The first accounts, given consecutive ids in this order; one must be an owner. */
      users: NewUser[];
      /** Lets the development realm reproduce the original's user ids. */
      first_user_id?: number;
    }
  | { type: 'realm.info' }
  | { type: 'realm.createUser'; user: NewUser }
  /**
   * Many accounts in one decision (the `create-users` admin command): all
   * or none, consecutive ids, one `realm_user` fan-out. At most
   * MAX_USERS_PER_BATCH; the reply is CreatedUser[] in the given order.
   */
  | { type: 'realm.createUsers'; users: NewUser[] }
  /** Credential checks, many in one message (an edge's concurrent requests); replies AuthenticateResult[] in order. */
  | { type: 'realm.authenticateMany'; credentials: Array<{ email: string; api_key: string }> }
  /** For password login: the edge verifies the hash, so the actor never spends ~50 ms on it. */
  | {
      type: 'realm.loginCandidate';
      username: string;
      /** A login by password: refused (PASSWORD_AUTH_DISABLED) while the realm has "Email" off. */
      login?: boolean;
    }
  | { type: 'realm.devApiKey'; username: string }
  | { type: 'realm.getUser'; user_id: number }
  | { type: 'realm.listUsers' }
  /**
   * Every account, as `realm.listUsers`, with the version of the list; with
   * `unless` equal to the current version the list is left out (the asker
   * already holds it).
   */
  | { type: 'realm.usersVersioned'; unless?: string }
  | { type: 'realm.resetApiKey'; email: string }
  /** The operator grants or revokes an account's `can_create_users` (`change-user-role`); replies CanCreateUsersGrant. */
  | { type: 'realm.setCanCreateUsers'; email: string; granted: boolean; permission?: SpecialPermission }
  /** Deactivates (`active` false) or reactivates an account. */
  /** `own`: the actor deactivates their own account (DELETE /users/me), under the rule of the last user and owner. */
  | { type: 'realm.setActive'; actor: Principal; user_id: number; active: boolean; own?: boolean }
  | { type: 'realm.settings' }
  /** The principal of the bot that posts automated notices. */
  | { type: 'realm.notificationBot' }
  | { type: 'realm.resolve'; query: ResolveQuery }
  /** Reserves a name and an id for a new channel. */
  | { type: 'realm.registerChannel'; entry: Omit<ChannelEntry, 'channel_id'> }
  | { type: 'realm.findChannel'; name: string }
  | { type: 'realm.channels' }
  /**
   * The private channels a user may know of, and those he may read, through his groups now (see
   * `knowsThroughGroups`), whether subscribed or not: one answer instead of asking each channel.
   */
  | {
      type: 'realm.channelGrants';
      user_id: number;
      /**
       * With the directory's entries too, so that what decides which public, web-public and private channels
       * one knows is read at one position of the realm, the one the register covers `stream` events at.
       */
      channels?: boolean;
    }
  /** Renames a channel in the directory; refused when the name is taken. */
  | { type: 'realm.renameChannel'; channel_id: number; name: string }
  /**
   * Passes events to the realm's active accounts who can see a channel but
   * are not among its subscribers (`except`, who heard directly): every
   * non-guest for a public channel, administrators for a private one.
   */
  | {
      type: 'realm.broadcast';
      events: QueueEvent[];
      to: 'members' | 'administrators';
      except: number[];
      /** The private channel the events are of: who knows of it through groups hears them too. */
      channel_id?: number;
    }
  /**
   * Keeps the directory's copy of a channel's flags current (sent by the ChannelActor). `fill`: the channel's
   * answer to `channel.report`, which fills an entry kept before the directory had channels' settings.
   */
  | { type: 'realm.channelChanged'; entry: Omit<ChannelEntry, 'is_default'>; fill?: true }
  /** From a UserActor: whether the user has an `all_public_streams` queue; `seq` orders the user's changes. */
  | { type: 'realm.publicListener'; user_id: number; listening: boolean; seq: number }
  /** From a public channel: its message events, for listeners not among those who heard them (`except`). */
  | { type: 'realm.publicMessage'; events: QueueEvent[]; except: number[] }
  /** A conversation's next message id, above its newest (`floor`); replies a number (`actors/realm/src/message-ids.ts`). */
  | { type: 'realm.nextMessageId'; floor: number }
  /** The ids of the users the realm relays public channels' messages to. */
  | { type: 'realm.publicListeners' }
  | GroupCommand
  | RealmSettingsCommand
  | UserAdminCommand
  | DefaultChannelCommand
  | PlaygroundCommand
  | LinkifierCommand
  | ProfileFieldCommand
  | FolderCommand
  | EmojiCommand
  | InviteCommand
  | ExportCommand
  | StatusCommand
  | BotCommand
  | SessionCommand;

export interface LoginCandidate extends ApiKeyGrant {
  password_hash: string | null;
}

export type RealmReplies = GroupReplies &
  EmojiReplies &
  BotReplies &
  SessionReplies &
  FolderReplies &
  RealmSettingsReplies &
  UserAdminReplies &
  DefaultChannelReplies &
  PlaygroundReplies &
  LinkifierReplies &
  ProfileFieldReplies &
  InviteReplies &
  ExportReplies &
  StatusReplies & {
    /** The first accounts, in the order given. */
    'realm.create': CreatedUser[];
    'realm.info': RealmInfo;
    'realm.createUser': CreatedUser;
    'realm.createUsers': CreatedUser[];
    'realm.authenticateMany': AuthenticateResult[];
    'realm.loginCandidate': LoginCandidate;
    'realm.devApiKey': ApiKeyGrant;
    'realm.getUser': UserProfile;
    'realm.listUsers': UserProfile[];
    'realm.usersVersioned': { version: string; users?: UserProfile[] };
    'realm.resetApiKey': { api_key: string };
    'realm.setCanCreateUsers': CanCreateUsersGrant;
    /** The account's real address and the realm's name, for the deactivation notice mail. */
    'realm.setActive': { delivery_email: string; realm_name: string };
    'realm.settings': RealmSettings;
    'realm.notificationBot': Principal;
    'realm.resolve': Resolved;
    'realm.registerChannel': ChannelEntry;
    'realm.findChannel': ChannelEntry;
    'realm.channels': ChannelEntry[];
    'realm.channelGrants': ChannelGrants;
    'realm.renameChannel': null;
    'realm.broadcast': null;
    'realm.channelChanged': null;
    'realm.publicListener': null;
    'realm.publicMessage': null;
    /** A message id, above `floor`. */
    'realm.nextMessageId': number;
    /** User ids. */
    'realm.publicListeners': number[];
  };

/** The RealmActor's protocol table. */
export type RealmProtocol = ProtocolOf<RealmCommand, RealmReplies>;
