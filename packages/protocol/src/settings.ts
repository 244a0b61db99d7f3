/**
 * Personal settings: the names `PATCH /settings` accepts and the values a new
 * user starts with (the original's defaults). The UserActor stores only what
 * the user set; everything else reads as its default.
 */
import type { QueueEvent } from './queue.js';
import { displaySettingUpdated, notificationSettingUpdated, userSettingUpdated } from './client-events/personal.js';
import type { ProtocolOf } from './contract.js';

export type SettingValue = boolean | number | string;

export const USER_SETTING_DEFAULTS = {
  twenty_four_hour_time: false,
  web_mark_read_on_scroll_policy: 1,
  web_channel_default_view: 1,
  starred_message_counts: true,
  receives_typing_notifications: true,
  web_suggest_update_timezone: true,
  fluid_layout_width: false,
  high_contrast_mode: false,
  web_font_size_px: 16,
  web_line_height_percent: 140,
  color_scheme: 1,
  enable_drafts_synchronization: true,
  translate_emoticons: false,
  display_emoji_reaction_users: true,
  default_language: 'en',
  web_home_view: 'inbox',
  web_escape_navigates_to_home_view: true,
  left_side_userlist: false,
  emojiset: 'google',
  demote_inactive_streams: 1,
  user_list_style: 3,
  web_animate_image_previews: 'on_hover',
  web_stream_unreads_count_display_policy: 2,
  hide_ai_features: false,
  web_left_sidebar_show_channel_folders: true,
  web_left_sidebar_unreads_count_summary: true,
  enable_stream_desktop_notifications: false,
  enable_stream_email_notifications: false,
  enable_stream_push_notifications: false,
  enable_stream_audible_notifications: false,
  notification_sound: 'zulip',
  enable_desktop_notifications: true,
  enable_sounds: true,
  email_notifications_batching_period_seconds: 120,
  enable_offline_email_notifications: true,
  enable_offline_push_notifications: true,
  enable_online_push_notifications: true,
  enable_followed_topic_desktop_notifications: true,
  enable_followed_topic_email_notifications: true,
  enable_followed_topic_push_notifications: true,
  enable_followed_topic_audible_notifications: true,
  enable_digest_emails: true,
  enable_marketing_emails: true,
  enable_login_emails: true,
  message_content_in_email_notifications: true,
  pm_content_in_desktop_notifications: true,
  wildcard_mentions_notify: true,
  enable_followed_topic_wildcard_mentions_notify: true,
  desktop_icon_count_display: 1,
  realm_name_in_email_notifications_policy: 1,
  automatically_follow_topics_policy: 3,
  automatically_unmute_topics_in_muted_streams_policy: 2,
  automatically_follow_topics_where_mentioned: true,
  resolved_topic_notice_auto_read_policy: 'except_followed',
  presence_enabled: true,
  enter_sends: false,
  send_private_typing_notifications: true,
  send_stream_typing_notifications: true,
  send_read_receipts: true,
  allow_private_data_export: false,
  email_address_visibility: 1,
  web_navigate_to_sent_message: true,
} as const satisfies Record<string, SettingValue>;

export type UserSettingName = keyof typeof USER_SETTING_DEFAULTS;
export type UserSettings = { [K in UserSettingName]: SettingValue };

export const isUserSettingName = (name: string): name is UserSettingName => Object.hasOwn(USER_SETTING_DEFAULTS, name);

/** Settings clients without `user_settings_object` learn through `update_display_settings`. */
export const LEGACY_DISPLAY_SETTINGS: readonly string[] = [
  'color_scheme',
  'default_language',
  'web_home_view',
  'demote_inactive_streams',
  'emojiset',
  'enable_drafts_synchronization',
  'enter_sends',
  'fluid_layout_width',
  'high_contrast_mode',
  'left_side_userlist',
  'starred_message_counts',
  'translate_emoticons',
  'twenty_four_hour_time',
];

/** Settings clients without `user_settings_object` learn through `update_global_notifications`. */
export const LEGACY_NOTIFICATION_SETTINGS: readonly string[] = [
  'desktop_icon_count_display',
  'email_notifications_batching_period_seconds',
  'enable_desktop_notifications',
  'enable_digest_emails',
  'enable_login_emails',
  'enable_marketing_emails',
  'enable_offline_email_notifications',
  'enable_offline_push_notifications',
  'enable_online_push_notifications',
  'enable_sounds',
  'enable_stream_audible_notifications',
  'enable_stream_desktop_notifications',
  'enable_stream_email_notifications',
  'enable_stream_push_notifications',
  'message_content_in_email_notifications',
  'notification_sound',
  'pm_content_in_desktop_notifications',
  'presence_enabled',
  'realm_name_in_email_notifications_policy',
  'wildcard_mentions_notify',
];

/** The events one changed setting raises for its user's queues (the queue drops the legacy ones per client). */
export function settingEvents(email: string, name: string, value: SettingValue, languageName?: string): QueueEvent[] {
  const language = name === 'default_language' ? languageName : undefined;
  const events: QueueEvent[] = [userSettingUpdated(name, value, language)];
  // The time zone is not a display setting, but the original announces it as one.
  if (LEGACY_DISPLAY_SETTINGS.includes(name) || name === 'timezone') {
    events.push(displaySettingUpdated(email, name, value, language));
  }
  if (LEGACY_NOTIFICATION_SETTINGS.includes(name)) events.push(notificationSettingUpdated(email, name, value));
  return events;
}

export type SettingsReplies = {
  'user.settings': UserSettings;
  /** The names of the settings that changed. */
  'user.updateSettings': { changed: string[] };
};

export type SettingsCommand =
  /** Every personal setting, defaults filled in. */
  | { type: 'user.settings' }
  /** Stores the values that differ from the current ones; replies the names changed. */
  | { type: 'user.updateSettings'; settings: Partial<UserSettings>; email: string; language_name?: string };

export type SettingsProtocol = ProtocolOf<SettingsCommand, SettingsReplies>;
