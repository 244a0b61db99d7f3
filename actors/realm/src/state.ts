import { ROLES, SYSTEM_GROUPS, type BotType, type ChannelEntry, type RealmSettings, type Role } from '@chat/protocol';
import type { ChannelFolder, OwedWebhook, RealmEmoji } from '@chat/protocol';
import type { Handlers } from '@chat/runtime';
import type { StoredGroup } from './groups/model.js';
import { forgetUserList } from './user-list.js';
import { applyInviteEvent, type EmailChange, type Invite, type InviteEvent, type InviteLink } from './invites/state.js';
import { applyActivity, type ActivityEvent } from './accounts/deactivation.js';
import { applyPeopleEvent, isPeopleEvent, type PeopleEvent, type PeopleState } from './status/commands.js';
import { applyMessageIdEvent, type MessageIdEvent, type MessageIds } from './message-ids.js';
import { applyPublicListener, type PublicListenerEvent, type PublicListeners } from './public-listeners.js';
import { applyCanCreateUsers, type CanCreateUsersEvent } from './accounts/create-users-permission.js';
import { applyExportEvent, type ExportEvent, type ExportRecord } from './exports.js';
import { applyBotEvent, applyWebhookEvent, type BotConfig, type BotEvent, type WebhookEvent } from './bots/model.js';
import { applySessionEvent, endSessionsOf, type Session, type SessionEvent } from './accounts/sessions.js';
import {
  applySettingsChanged,
  applyUserDefaultsChanged,
  type SettingsChangedEvent,
  type UserDefaultsChangedEvent,
} from './settings.js';
import { applyRoleChanged, type RoleChangedEvent } from './accounts/manage.js';
import { applyEmailVisibilitySet, type EmailVisibilitySetEvent } from './accounts/email-visibility.js';
import { applyDefaultChannelSet, type DefaultChannelSetEvent } from './default-channels.js';
import { applyPlaygroundEvent, type PlaygroundEvent } from './playgrounds.js';
import { applyLinkifiersSet, type LinkifiersSetEvent } from './linkifiers.js';
import {
  applyProfileDataSet,
  applyProfileFieldsSet,
  type ProfileDataSetEvent,
  type ProfileFieldsSetEvent,
} from './profile-fields.js';
import type { GroupSetting, Linkifier, Playground, ProfileField, ProfileValue, RealmValue } from '@chat/protocol';

/** One account of the realm, as the RealmActor keeps it. */
export interface Account {
  id: number;
  email: string;
  fullName: string;
  role: Role;
  isActive: boolean;
  /** Epoch seconds. */
  dateJoined: number;
  apiKey: string;
  passwordHash: string | null;
  botType: BotType | null;
  botOwnerId: number | null;
  timezone: string;
  avatarVersion: number;
  /** The uploaded avatar's file name (avatars.ts); absent: the gravatar. */
  avatarFile?: string;
  /** Custom profile field values by field id. */
  profileData?: Record<string, ProfileValue>;
  /** The `can_create_users` permission (accounts/create-users-permission.ts); absent means not held. */
  canCreateUsers?: boolean;
  /** The `can_change_user_emails` permission (accounts/email-change.ts), given at creation; absent means not held. */
  canChangeUserEmails?: boolean;
  /** A bot's defaults and services (bots/model.ts); absent for people and older bots. */
  bot?: BotConfig;
  /** `email_address_visibility` when not "everyone", and the placeholder API address it implies (accounts/email-visibility.ts). */
  emailVisibility?: number;
  apiEmail?: string;
}

export interface RealmState {
  exists: boolean;
  /** Calls to outgoing webhook bots not yet done, by `<message id>:<bot id>` (bots/model.ts). */
  owedWebhooks?: Record<string, OwedWebhook>;
  id: number;
  stringId: string;
  name: string;
  description: string;
  development: boolean;
  webPublicAccessEnabled: boolean;
  dateCreated: number;
  accounts: Record<number, Account>;
  /** Lower-cased real e-mail -> user id. */
  byEmail: Record<string, number>;
  /** The server's host placeholder addresses are made with, as last told (accounts/email-visibility.ts). */
  emailDomain?: string;
  nextUserId: number;
  /** The channel directory: lower-cased name -> channel id. */
  channelsByName: Record<string, number>;
  channels: Record<number, ChannelEntry>;
  nextChannelId: number;
  settings: RealmSettings;
  /** The organization settings no messaging rule reads, as changed (absent: the default; see settings.ts). */
  options?: Record<string, RealmValue | GroupSetting>;
  /** The user settings new users start with, as administrators changed them (absent: the server's defaults). */
  userDefaults?: Record<string, RealmValue>;
  /** Code playgrounds by id (absent in older snapshots). */
  playgrounds?: Record<number, Playground>;
  /** Linkifiers in the order they apply (absent in older snapshots), the next id, and a digest of the list. */
  linkifiers?: Linkifier[];
  nextLinkifierId?: number;
  linkifiersVersion?: string;
  /** Custom profile fields in their order (absent in older snapshots), and the next id. */
  profileFields?: ProfileField[];
  nextProfileFieldId?: number;
  /** Sends the automated notices (topic moves, resolutions). */
  notificationBotId: number | null;
  /** User-defined groups by id (absent in older snapshots); system groups are computed from roles. */
  userGroups?: Record<number, StoredGroup>;
  /** Channel folders by id (absent in older snapshots). */
  channelFolders?: Record<number, ChannelFolder>;
  /** Custom emoji by id, deactivated ones too (absent in older snapshots). */
  emoji?: Record<string, RealmEmoji>;
  /** Pending e-mail invitations by id (absent in older snapshots). */
  invites?: Record<number, Invite>;
  /** Reusable invitation links by id (their own ids, as in the original's separate table). */
  inviteLinks?: Record<number, InviteLink>;
  /** Data exports by id (absent in older snapshots). */
  exports?: Record<number, ExportRecord>;
  /** The realm's message id sequence (absent until the first message). */
  messageIds?: MessageIds;
  nextInviteId?: number;
  /** Pending address changes by the hash of their confirmation key. */
  emailChanges?: Record<string, EmailChange>;
  /** Statuses, presence and invisible users: see status/commands.ts. */
  statuses?: PeopleState['statuses'];
  invisible?: PeopleState['invisible'];
  presence?: PeopleState['presence'];
  lastPresenceId?: PeopleState['lastPresenceId'];
  /** Users with an `all_public_streams` queue (absent in older snapshots): see public-listeners.ts. */
  publicListeners?: PublicListeners;
  /** Browser sessions by the SHA-256 of their key (absent in older snapshots): see accounts/sessions.ts. */
  sessions?: Record<string, Session>;
}

const WEEK = 7 * 24 * 3600;

/** A new organization's settings, as the original sets them. */
export const DEFAULT_SETTINGS: RealmSettings = {
  allow_message_editing: true,
  message_edit_history_visibility_policy: 'all',
  message_content_edit_limit_seconds: 600,
  message_content_delete_limit_seconds: 600,
  move_messages_within_stream_limit_seconds: WEEK,
  move_messages_between_streams_limit_seconds: WEEK,
  topics_policy: 'allow_empty_topic',
  empty_topic_display_name: 'general chat',
  message_retention_days: -1,
  enable_spectator_access: false,
  enable_read_receipts: true,
  can_mention_many_users_group: SYSTEM_GROUPS['role:administrators'],
  can_move_messages_between_channels_group: SYSTEM_GROUPS['role:members'],
  can_move_messages_between_topics_group: SYSTEM_GROUPS['role:everyone'],
  can_resolve_topics_group: SYSTEM_GROUPS['role:everyone'],
  can_delete_any_message_group: SYSTEM_GROUPS['role:administrators'],
  can_delete_own_message_group: SYSTEM_GROUPS['role:everyone'],
  can_create_public_channel_group: SYSTEM_GROUPS['role:members'],
  can_create_private_channel_group: SYSTEM_GROUPS['role:members'],
  can_create_web_public_channel_group: SYSTEM_GROUPS['role:owners'],
  can_add_subscribers_group: SYSTEM_GROUPS['role:members'],
  can_create_groups: SYSTEM_GROUPS['role:members'],
  can_manage_all_groups: SYSTEM_GROUPS['role:owners'],
  can_invite_users_group: SYSTEM_GROUPS['role:members'],
  can_create_bots_group: SYSTEM_GROUPS['role:members'],
  can_create_write_only_bots_group: SYSTEM_GROUPS['role:members'],
  direct_message_permission_group: SYSTEM_GROUPS['role:everyone'],
  direct_message_initiator_group: SYSTEM_GROUPS['role:everyone'],
  can_access_all_users_group: SYSTEM_GROUPS['role:everyone'],
};

/** Settings once kept among the options (stored, not read by rules), now read by messaging rules. */
const PROMOTED_OPTIONS = [
  'direct_message_permission_group',
  'direct_message_initiator_group',
  'can_access_all_users_group',
] as const;

export const NOTIFICATION_BOT = {
  email: 'notification-bot@zulip.com',
  full_name: 'Notification Bot',
  role: ROLES.member,
};

export type RealmEvent =
  | {
      type: 'realmCreated';
      id: number;
      name: string;
      description: string;
      development: boolean;
      webPublicAccessEnabled: boolean;
      settings?: Partial<RealmSettings>;
      at: number;
      firstUserId: number;
    }
  | { type: 'accountCreated'; account: Account }
  | { type: 'apiKeyChanged'; userId: number; apiKey: string }
  | { type: 'avatarChanged'; userId: number; file: string | null }
  | { type: 'channelRegistered'; channelId: number; name: string; entry?: ChannelEntry }
  | { type: 'channelRenamed'; channelId: number; name: string }
  | { type: 'channelChanged'; entry: Omit<ChannelEntry, 'is_default'> }
  | { type: 'notificationBotCreated'; userId: number }
  | { type: 'userGroupSaved'; group: StoredGroup }
  | { type: 'channelFolderSaved'; folder: ChannelFolder }
  | { type: 'emojiSaved'; emoji: RealmEmoji }
  | InviteEvent
  | PeopleEvent
  | ActivityEvent
  | PublicListenerEvent
  | MessageIdEvent
  | CanCreateUsersEvent
  | BotEvent
  | WebhookEvent
  | SessionEvent
  | SettingsChangedEvent
  | UserDefaultsChangedEvent
  | RoleChangedEvent
  | EmailVisibilitySetEvent
  | DefaultChannelSetEvent
  | PlaygroundEvent
  | LinkifiersSetEvent
  | ProfileFieldsSetEvent
  | ProfileDataSetEvent
  | ExportEvent;

export function initialState(stringId: string): RealmState {
  return {
    exists: false,
    id: 0,
    stringId,
    name: '',
    description: '',
    development: false,
    webPublicAccessEnabled: false,
    dateCreated: 0,
    accounts: {},
    byEmail: {},
    nextUserId: 1,
    channelsByName: {},
    channels: {},
    nextChannelId: 1,
    settings: DEFAULT_SETTINGS,
    notificationBotId: null,
  };
}

export function applyEvent(state: RealmState, event: RealmEvent): void {
  forgetUserList(state, event);
  const endsSessions =
    (event.type === 'accountActiveSet' && !event.active) ||
    (event.type === 'accountUpdated' && event.passwordHash !== undefined);
  if (endsSessions) endSessionsOf(state, event.userId);
  if (isPeopleEvent(event)) return applyPeopleEvent(state, event);
  switch (event.type) {
    case 'accountActiveSet':
      return applyActivity(state, event);
    case 'publicListenerSet':
      return applyPublicListener(state, event);
    case 'canCreateUsersSet':
      return applyCanCreateUsers(state, event);
    case 'botUpdated':
      return applyBotEvent(state, event);
    case 'webhooksOwed':
    case 'webhookDone':
      return applyWebhookEvent(state, event);
    case 'sessionStarted':
    case 'sessionEnded':
      return applySessionEvent(state, event);
    case 'realmSettingsChanged':
      return applySettingsChanged(state, event);
    case 'userDefaultsChanged':
      return applyUserDefaultsChanged(state, event);
    case 'roleChanged':
      return applyRoleChanged(state, event);
    case 'emailVisibilitySet':
      return applyEmailVisibilitySet(state, event);
    case 'defaultChannelSet':
      return applyDefaultChannelSet(state, event);
    case 'playgroundChanged':
      return applyPlaygroundEvent(state, event);
    case 'linkifiersSet':
      return applyLinkifiersSet(state, event);
    case 'profileFieldsSet':
      return applyProfileFieldsSet(state, event);
    case 'profileDataSet':
      return applyProfileDataSet(state, event);
    case 'exportRequested':
    case 'exportDone':
      return applyExportEvent(state, event);
    case 'messageIdsReserved':
    case 'messageIdTaken':
      return applyMessageIdEvent(state, event);
    case 'realmCreated':
      Object.assign(state, {
        exists: true,
        id: event.id,
        name: event.name,
        description: event.description,
        development: event.development,
        webPublicAccessEnabled: event.webPublicAccessEnabled,
        dateCreated: event.at,
        nextUserId: event.firstUserId,
        settings: { ...DEFAULT_SETTINGS, ...event.settings },
      });
      return;
    case 'accountCreated':
      state.accounts[event.account.id] = event.account;
      state.byEmail[event.account.email.toLowerCase()] = event.account.id;
      state.nextUserId = Math.max(state.nextUserId, event.account.id + 1);
      return;
    case 'apiKeyChanged':
      state.accounts[event.userId]!.apiKey = event.apiKey;
      return;
    case 'avatarChanged': {
      const account = state.accounts[event.userId]!;
      account.avatarVersion += 1;
      if (event.file === null) delete account.avatarFile;
      else account.avatarFile = event.file;
      return;
    }
    case 'channelRegistered':
      state.channelsByName[event.name.toLowerCase()] = event.channelId;
      state.channels ??= {};
      state.channels[event.channelId] = event.entry ?? {
        channel_id: event.channelId,
        name: event.name,
        invite_only: false,
        is_web_public: false,
        is_archived: false,
        is_default: false,
      };
      state.nextChannelId = Math.max(state.nextChannelId, event.channelId + 1);
      return;
    case 'channelRenamed': {
      const entry = state.channels[event.channelId]!;
      delete state.channelsByName[entry.name.toLowerCase()];
      state.channelsByName[event.name.toLowerCase()] = event.channelId;
      entry.name = event.name;
      return;
    }
    case 'channelChanged':
      Object.assign(state.channels[event.entry.channel_id]!, event.entry);
      return;
    case 'notificationBotCreated':
      state.notificationBotId = event.userId;
      return;
    case 'userGroupSaved':
      (state.userGroups ??= {})[event.group.id] = event.group;
      return;
    case 'channelFolderSaved':
      (state.channelFolders ??= {})[event.folder.id] = event.folder;
      return;
    case 'emojiSaved':
      (state.emoji ??= {})[event.emoji.id] = event.emoji;
      return;
    case 'invitesCreated':
    case 'inviteRemoved':
    case 'inviteRenewed':
    case 'emailChangeRequested':
    case 'emailChangeDropped':
    case 'emailChanged':
    case 'inviteLinkCreated':
    case 'inviteLinkRevoked':
      applyInviteEvent(state, event);
      return;
  }
}

/** Fills in what snapshots written before a field existed lack. */
export function migrate(state: RealmState): void {
  state.channels ??= {};
  state.settings = { ...DEFAULT_SETTINGS, ...state.settings };
  for (const name of PROMOTED_OPTIONS) {
    const kept = state.options?.[name];
    if (kept === undefined) continue;
    state.settings = { ...state.settings, [name]: kept };
    delete state.options![name];
  }
  state.notificationBotId ??= null;
  for (const [name, id] of Object.entries(state.channelsByName)) {
    state.channels[id] ??= {
      channel_id: id,
      name,
      invite_only: false,
      is_web_public: false,
      is_archived: false,
      is_default: false,
    };
  }
}

/** A table of handlers for (part of) the RealmActor's protocol. */
export type RealmHandlers<P> = Handlers<RealmState, RealmEvent, P>;
