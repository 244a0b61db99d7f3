import { AUTH_METHOD_OPTIONS, SYSTEM_GROUPS, type Organization, type RealmInfo } from '@chat/protocol';
import { LIMITS } from '../../limits.js';
import type { ApiOptions } from '../../options.js';
import { PRESENCE_TIMING } from '../../users/presence.js';
import { gravatarUrl } from '../../users/json.js';
import { fakeEmailDomain } from '../../email-domain.js';
import { offeredAuthMethods } from '../../realm/settings.js';

/** The original's preset external accounts of custom profile fields. */
export const EXTERNAL_ACCOUNTS: Record<string, { name: string; text: string; hint: string; url_pattern: string }> = {
  github: {
    name: 'GitHub',
    text: 'GitHub',
    hint: 'Enter your GitHub username',
    url_pattern: 'https://github.com/%(username)s',
  },
  twitter: {
    name: 'Twitter',
    text: 'Twitter',
    hint: 'Enter your Twitter username',
    url_pattern: 'https://twitter.com/%(username)s',
  },
};

/** The served `server_emoji_data_url` (see `emoji-data.ts` in @chat/server). */
export const EMOJI_DATA_PATH = '/static/generated/emoji/emoji_api.json';

/** How often clients send typing notifications and how long they show them, as the original's defaults. */
const TYPING_TIMING = {
  server_typing_started_expiry_period_milliseconds: 15000,
  server_typing_stopped_wait_period_milliseconds: 5000,
  server_typing_started_wait_period_milliseconds: 10000,
};

const { 'role:everyone': everyone, 'role:members': members } = SYSTEM_GROUPS;
const { 'role:moderators': moderators, 'role:administrators': administrators } = SYSTEM_GROUPS;
const { 'role:owners': owners, 'role:nobody': nobody } = SYSTEM_GROUPS;

/**
 * Settings no operation changes yet, at the original's defaults for a new
 * organization, with what this server does not offer (bots, video calls,
 * GIPHY, billing) switched off.
 */
const FIXED = {
  max_channel_folder_name_length: 60,
  max_channel_folder_description_length: 1024,
  server_min_deactivated_realm_deletion_days: 14,
  server_max_deactivated_realm_deletion_days: null,
  realm_icon_source: 'G',
  max_icon_file_size_mib: 5,
  realm_logo_source: 'D',
  realm_night_logo_source: 'D',
  max_logo_file_size_mib: 5,
  realm_presence_disabled: false,
  settings_send_digest_emails: false,
  realm_is_zephyr_mirror_realm: false,
  realm_push_notifications_enabled: false,
  realm_push_notifications_enabled_end_timestamp: null,
  realm_upload_quota_mib: null,
  realm_plan_type: 1,
  zulip_plan_is_not_limited: true,
  upgrade_text_for_wide_organization_logo: '',
  realm_default_external_accounts: EXTERNAL_ACCOUNTS,
  jitsi_server_url: 'https://meet.jit.si',
  server_jitsi_server_url: 'https://meet.jit.si',
  password_min_length: 6,
  password_max_length: 100,
  password_min_guesses: 10000,
  giphy_rating_options: { disabled: { name: 'GIPHY integration disabled', id: 0 } },
  max_avatar_file_size_mib: 5,
  server_inline_image_preview: true,
  server_inline_url_embed_preview: false,
  server_thumbnail_formats: [],
  server_avatar_changes_disabled: false,
  server_name_changes_disabled: false,
  server_needs_upgrade: false,
  server_web_public_streams_enabled: true,
  server_can_summarize_topics: false,
  server_supported_permission_settings: { realm: {}, stream: {}, group: {} },
};

/** When this process started, as the original's `server_generation`. */
const SERVER_GENERATION = Math.floor(Date.now() / 1000);

/**
 * The legacy policy integers some clients still read, derived from the group
 * settings that replaced them (1 everyone ... 6 nobody, 7 moderators, as the
 * original's `realm_wildcard_mention_policy`; 1 members, 2 admins, 3 full
 * members, 4 moderators for channel creation).
 */
function wildcardPolicy(setting: unknown): number {
  const byGroup: Record<number, number> = {
    [everyone]: 1,
    [members]: 2,
    [administrators]: 5,
    [nobody]: 6,
    [moderators]: 7,
  };
  return typeof setting === 'number' ? (byGroup[setting] ?? 3) : 1;
}

function creationPolicy(setting: unknown): number {
  const byGroup: Record<number, number> = { [members]: 1, [administrators]: 2, [owners]: 2, [moderators]: 4 };
  return typeof setting === 'number' ? (byGroup[setting] ?? 3) : 1;
}

/**
 * The ways to log in (`realm_authentication_methods`, only those this server
 * offers) and the two flags the original derives from them: e-mail and
 * password login (no LDAP here) are both "Email".
 */
function authentication(info: RealmInfo, options: ApiOptions): Record<string, unknown> {
  const methods = offeredAuthMethods(options, info.development);
  const table = Object.fromEntries(
    methods.map((method) => [method, { enabled: info.authentication[method], available: true }]),
  );
  const email = info.authentication.Email;
  return {
    realm_authentication_methods: table,
    realm_email_auth_enabled: email,
    realm_password_auth_enabled: email,
  };
}

/** Where the realm keeps whether each way to log in is on: shown as `realm_authentication_methods`. */
const AUTH_OPTION_NAMES = new Set<string>(Object.values(AUTH_METHOD_OPTIONS));

/** The organization's settings and limits (`realm` in `fetch_event_types`): every key the original sends. */
export function realmSection(org: Organization, info: RealmInfo, options: ApiOptions): Record<string, unknown> {
  const url = options.externalUrl;
  const settings = org.settings;
  return {
    ...FIXED,
    ...PRESENCE_TIMING,
    ...TYPING_TIMING,
    realm_name: org.name,
    realm_description: org.description,
    realm_date_created: Math.floor(info.date_created / 1000),
    realm_url: url,
    realm_uri: url,
    realm_bot_domain: fakeEmailDomain(url, options.fakeEmailDomain),
    realm_icon_url: gravatarUrl(info.string_id, 1),
    realm_logo_url: `${url}/static/images/logo/zulip-org-logo.svg`,
    realm_night_logo_url: `${url}/static/images/logo/zulip-org-logo.svg`,
    development_environment: options.mode === 'development',
    server_generation: SERVER_GENERATION,
    server_emoji_data_url: `${url}${EMOJI_DATA_PATH}`,
    max_message_length: LIMITS.max_message_length,
    max_topic_length: LIMITS.max_topic_length,
    max_stream_name_length: LIMITS.max_stream_name_length,
    max_stream_description_length: LIMITS.max_stream_description_length,
    max_file_upload_size_mib: options.maxFileUploadSizeMib,
    ...Object.fromEntries(
      Object.entries(org.settings)
        .filter(([name]) => !AUTH_OPTION_NAMES.has(name))
        .map(([name, value]) => [`realm_${name}`, value]),
    ),
    ...authentication(info, options),
    realm_mandatory_topics: settings.topics_policy === 'disable_empty_topic',
    // Deprecated (feature level 358) for message_edit_history_visibility_policy.
    realm_allow_edit_history: settings.message_edit_history_visibility_policy !== 'none',
    realm_available_video_chat_providers: {
      disabled: { name: 'None', id: 0 },
      jitsi_meet: { name: 'Jitsi Meet', id: 1 },
      ...(options.bigBlueButton && { big_blue_button: { name: 'BigBlueButton', id: 4 } }),
    },
    realm_wildcard_mention_policy: wildcardPolicy(settings.can_mention_many_users_group),
    realm_create_public_stream_policy: creationPolicy(settings.can_create_public_channel_group),
    realm_create_private_stream_policy: creationPolicy(settings.can_create_private_channel_group),
    realm_create_web_public_stream_policy: creationPolicy(settings.can_create_web_public_channel_group),
    event_queue_longpoll_timeout_seconds: Math.ceil(options.heartbeatMs / 1000) + 30,
  };
}
