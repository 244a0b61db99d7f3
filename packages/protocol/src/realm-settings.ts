import { SYSTEM_GROUPS, type GroupSetting, type GroupSettingChange, type SystemGroupName } from './groups.js';
import type { ProtocolOf } from './contract.js';

/**
 * The organization settings `PATCH /realm` changes, as the original's
 * `Realm.property_types` and `Realm.REALM_PERMISSION_GROUP_SETTINGS` list
 * them. The ones messaging rules read are `RealmSettings` (realm.ts), sent
 * with the commands that need them; the rest are `RealmOptions`, kept by
 * the RealmActor and shown in the register snapshot only.
 */
export type RealmValue = boolean | number | string | null;

/** A realm group setting's rules (the original's GroupPermissionSetting). */
export interface RealmGroupRule {
  default: SystemGroupName;
  /** May be `role:everyone` (which lets guests in). */
  everyone: boolean;
  /** May be `role:nobody`. */
  nobody: boolean;
  /** Must be one of these system groups (and a system group at all). */
  system?: SystemGroupName[];
}

const rule = (def: SystemGroupName, everyone: boolean, nobody = true): RealmGroupRule => ({
  default: def,
  everyone,
  nobody,
});

export const REALM_GROUP_RULES = {
  can_access_all_users_group: {
    ...rule('role:everyone', true, false),
    system: ['role:everyone', 'role:members'],
  },
  can_add_custom_emoji_group: rule('role:members', false),
  can_add_subscribers_group: rule('role:members', false),
  can_create_bots_group: rule('role:members', false),
  can_create_groups: rule('role:members', false),
  can_create_private_channel_group: rule('role:members', false),
  can_create_public_channel_group: rule('role:members', false),
  can_create_web_public_channel_group: {
    ...rule('role:owners', false),
    system: ['role:moderators', 'role:administrators', 'role:owners', 'role:nobody'],
  },
  can_create_write_only_bots_group: rule('role:members', false),
  can_delete_any_message_group: rule('role:administrators', false),
  can_delete_own_message_group: rule('role:everyone', true),
  can_invite_users_group: rule('role:members', false),
  can_manage_all_groups: rule('role:owners', false, false),
  can_manage_billing_group: rule('role:administrators', false, false),
  can_mention_many_users_group: rule('role:administrators', true),
  can_move_messages_between_channels_group: rule('role:members', false),
  can_move_messages_between_topics_group: rule('role:everyone', true),
  can_resolve_topics_group: rule('role:everyone', true),
  can_set_delete_message_policy_group: rule('role:moderators', false),
  can_set_topics_policy_group: rule('role:members', true),
  can_summarize_topics_group: rule('role:everyone', true),
  create_multiuse_invite_group: rule('role:administrators', false),
  direct_message_initiator_group: rule('role:everyone', true),
  direct_message_permission_group: rule('role:everyone', true),
} satisfies Record<string, RealmGroupRule>;
export type RealmGroupSettingName = keyof typeof REALM_GROUP_RULES;
export const REALM_GROUP_SETTINGS = Object.keys(REALM_GROUP_RULES) as RealmGroupSettingName[];

/** The original's `MESSAGE_RETENTION_SPECIAL_VALUES_MAP` and `MESSAGE_TIME_LIMIT_SETTING_SPECIAL_VALUES_MAP`. */
export const UNLIMITED = 'unlimited';

/** Defaults of the settings no messaging rule reads, for a new organization, as the original's model has them. */
export const REALM_OPTION_DEFAULTS = {
  avatar_changes_disabled: false,
  default_code_block_language: '',
  default_language: 'en',
  digest_emails_enabled: false,
  digest_weekday: 1,
  disallow_disposable_email_addresses: true,
  email_changes_disabled: false,
  emails_restricted_to_domains: false,
  enable_guest_user_dm_warning: true,
  enable_guest_user_indicator: true,
  // GIPHY and video calls start switched off: this server has no GIPHY key, and calls are the organization's choice.
  giphy_rating: 0,
  inline_image_preview: true,
  inline_url_embed_preview: false,
  invite_required: true,
  jitsi_server_url: null as string | null,
  message_content_allowed_in_email_notifications: true,
  moderation_request_channel_id: -1,
  name_changes_disabled: false,
  new_stream_announcements_stream_id: -1,
  org_type: 0,
  require_e2ee_push_notifications: false,
  require_unique_names: false,
  send_welcome_emails: true,
  signup_announcements_stream_id: -1,
  video_chat_provider: 0,
  waiting_period_threshold: 0,
  want_advertise_in_communities_directory: false,
  welcome_message_custom_text: '',
  zulip_update_announcements_stream_id: -1,
};
export type RealmOptions = { [K in keyof typeof REALM_OPTION_DEFAULTS]: RealmValue } & Record<
  string,
  RealmValue | GroupSetting
>;

/** Settings whose value names a channel (-1: none): the realm checks the channel exists. */
export const CHANNEL_SETTINGS = [
  'moderation_request_channel_id',
  'new_stream_announcements_stream_id',
  'signup_announcements_stream_id',
  'zulip_update_announcements_stream_id',
];

/** What only owners may change (the original's OrganizationOwnerRequiredError); administrators change the rest. */
export const OWNER_ONLY_SETTINGS = new Set<string>([
  'message_retention_days',
  'invite_required',
  'create_multiuse_invite_group',
  'can_create_groups',
  'can_invite_users_group',
  'can_manage_all_groups',
  'can_manage_billing_group',
  'emails_restricted_to_domains',
  'disallow_disposable_email_addresses',
  'waiting_period_threshold',
]);

/**
 * The original's authentication backends this server has, by the names of
 * `authentication_methods`, each with the realm option that keeps whether it
 * is on (unset: on). "Email" is password login; "Dev" the development
 * server's login without a password, offered only there.
 */
export const AUTH_METHOD_OPTIONS = { Dev: 'dev_auth_enabled', Email: 'email_auth_enabled' } as const;
export type AuthMethod = keyof typeof AUTH_METHOD_OPTIONS;

export const authMethodEnabled = (settings: Record<string, unknown>, method: AuthMethod): boolean =>
  settings[AUTH_METHOD_OPTIONS[method]] !== false;

/** A request's `authentication_methods` (names already checked), with the methods this server offers. */
export interface AuthMethodsChange {
  requested: Partial<Record<AuthMethod, boolean>>;
  offered: AuthMethod[];
}

export const systemGroupDefault = (name: RealmGroupSettingName): number =>
  SYSTEM_GROUPS[REALM_GROUP_RULES[name].default];

/**
 * The RealmActor's organization-settings commands. `values` are already
 * parsed by the edge (types, special values, enumerations); the realm
 * checks who may change what, channels and groups, and announces changes.
 */
export type RealmSettingsCommand =
  /** Name, description, every RealmSettings and RealmOptions value: the register's `realm` section. */
  | { type: 'realm.organization' }
  /** Changes the settings new users start with (`PATCH /realm/user_settings_defaults`); replies null. */
  | { type: 'realm.updateUserDefaults'; actor_id: number; values: Record<string, RealmValue>; domain?: string }
  | {
      type: 'realm.updateSettings';
      actor_id: number;
      values: Record<string, RealmValue>;
      groups: Partial<Record<RealmGroupSettingName, GroupSettingChange>>;
      /** Owners only: which ways to log in are on. */
      authentication_methods?: AuthMethodsChange;
    };

export type RealmSettingsReplies = {
  'realm.organization': Organization;
  'realm.updateUserDefaults': null;
  /** The values that changed, by name (a string value shows as `updated`). */
  'realm.updateSettings': Record<string, unknown>;
};

/** The reply to `realm.organization`. */
export interface Organization {
  name: string;
  description: string;
  settings: Record<string, RealmValue | GroupSetting>;
  /** The user settings an administrator changed for new users (the rest are the server's defaults). */
  user_defaults: Record<string, RealmValue>;
}

export type RealmSettingsProtocol = ProtocolOf<RealmSettingsCommand, RealmSettingsReplies>;
