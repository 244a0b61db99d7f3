/** Client events about one user's own data, in the reference's shapes (`GET /events`). */
import type { MutedUser } from '../muting.js';
import type { Draft, E2eePushStatus, NavigationView, SavedSnippet } from '../personal.js';
import type { SettingValue } from '../settings.js';

export type DraftsEvent =
  | { type: 'drafts'; op: 'add'; drafts: Draft[] }
  | { type: 'drafts'; op: 'update'; draft: Draft }
  | { type: 'drafts'; op: 'remove'; draft_id: number };
export const draftsAdded = (drafts: Draft[]): DraftsEvent => ({ type: 'drafts', op: 'add', drafts });
export const draftUpdated = (draft: Draft): DraftsEvent => ({ type: 'drafts', op: 'update', draft });
export const draftRemoved = (draft_id: number): DraftsEvent => ({ type: 'drafts', op: 'remove', draft_id });

export type SavedSnippetsEvent =
  | { type: 'saved_snippets'; op: 'add' | 'update'; saved_snippet: SavedSnippet }
  | { type: 'saved_snippets'; op: 'remove'; saved_snippet_id: number };
export const snippetSaved = (op: 'add' | 'update', saved_snippet: SavedSnippet): SavedSnippetsEvent => ({
  type: 'saved_snippets',
  op,
  saved_snippet,
});
export const snippetRemoved = (saved_snippet_id: number): SavedSnippetsEvent => ({
  type: 'saved_snippets',
  op: 'remove',
  saved_snippet_id,
});

export type NavigationViewEvent =
  | { type: 'navigation_view'; op: 'add'; navigation_view: NavigationView }
  | { type: 'navigation_view'; op: 'update'; fragment: string; data: Partial<NavigationView> }
  | { type: 'navigation_view'; op: 'remove'; fragment: string };
export const viewAdded = (navigation_view: NavigationView): NavigationViewEvent => ({
  type: 'navigation_view',
  op: 'add',
  navigation_view,
});
export const viewUpdated = (fragment: string, data: Partial<NavigationView>): NavigationViewEvent => ({
  type: 'navigation_view',
  op: 'update',
  fragment,
  data,
});
export const viewRemoved = (fragment: string): NavigationViewEvent => ({
  type: 'navigation_view',
  op: 'remove',
  fragment,
});

export type MutedUsersEvent = { type: 'muted_users'; muted_users: MutedUser[] };
export const mutedUsersEvent = (muted_users: MutedUser[]): MutedUsersEvent => ({ type: 'muted_users', muted_users });

export type AlertWordsEvent = { type: 'alert_words'; alert_words: string[] };
export const alertWordsEvent = (alert_words: string[]): AlertWordsEvent => ({ type: 'alert_words', alert_words });

export type UserTopicEvent = {
  type: 'user_topic';
  stream_id: number;
  topic_name: string;
  last_updated: number;
  visibility_policy: number;
};
export const userTopicEvent = (
  stream_id: number,
  topic_name: string,
  visibility_policy: number,
  last_updated: number,
): UserTopicEvent => ({
  type: 'user_topic',
  stream_id,
  topic_name,
  last_updated,
  visibility_policy,
});

/** `message_details` only when unread is set back (the edge leaves it as built). */
export type UpdateMessageFlagsEvent = {
  type: 'update_message_flags';
  op: 'add' | 'remove';
  operation: 'add' | 'remove';
  flag: string;
  messages: number[];
  all: boolean;
  message_details?: Record<string, unknown>;
};
export const flagsUpdated = (op: 'add' | 'remove', flag: string, messages: number[]): UpdateMessageFlagsEvent => ({
  type: 'update_message_flags',
  op,
  operation: op,
  flag,
  messages,
  all: false,
});

/** `push_device`: an E2EE registration's status changed (push account ids are strings in events). */
export type PushDeviceEvent = {
  type: 'push_device';
  push_account_id: string;
  status: E2eePushStatus;
  error_code?: string | null;
};
export const pushDeviceChanged = (
  push_account_id: number,
  status: E2eePushStatus,
  error_code: string | null,
): PushDeviceEvent => ({
  type: 'push_device',
  push_account_id: String(push_account_id),
  status,
  ...(status === 'failed' && { error_code }),
});

/** The reference's `ScheduledMessage`. */
export type ScheduledMessageJson = {
  scheduled_message_id: number;
  type: 'stream' | 'private';
  to: number | number[];
  topic?: string;
  content: string;
  rendered_content: string;
  scheduled_delivery_timestamp: number;
  failed: boolean;
};
/** The reference's `Reminder`. */
export type ReminderJson = {
  reminder_id: number;
  type: 'private';
  to: number[];
  reminder_target_message_id?: number;
  content: string;
  rendered_content: string;
  scheduled_delivery_timestamp: number;
  failed: boolean;
};

export type ScheduledMessagesEvent =
  | { type: 'scheduled_messages'; op: 'add'; scheduled_messages: ScheduledMessageJson[] }
  | { type: 'scheduled_messages'; op: 'update'; scheduled_message: ScheduledMessageJson }
  | { type: 'scheduled_messages'; op: 'remove'; scheduled_message_id: number };
export const scheduledAdded = (scheduled_messages: ScheduledMessageJson[]): ScheduledMessagesEvent => ({
  type: 'scheduled_messages',
  op: 'add',
  scheduled_messages,
});
export const scheduledUpdated = (scheduled_message: ScheduledMessageJson): ScheduledMessagesEvent => ({
  type: 'scheduled_messages',
  op: 'update',
  scheduled_message,
});
export const scheduledRemoved = (scheduled_message_id: number): ScheduledMessagesEvent => ({
  type: 'scheduled_messages',
  op: 'remove',
  scheduled_message_id,
});

export type RemindersEvent =
  | { type: 'reminders'; op: 'add'; reminders: ReminderJson[] }
  | { type: 'reminders'; op: 'remove'; reminder_id: number };
export const remindersAdded = (reminders: ReminderJson[]): RemindersEvent => ({
  type: 'reminders',
  op: 'add',
  reminders,
});
export const reminderRemoved = (reminder_id: number): RemindersEvent => ({
  type: 'reminders',
  op: 'remove',
  reminder_id,
});

/** The legacy list of muted topics: [channel name, topic, timestamp]. */
export type MutedTopicsEvent = { type: 'muted_topics'; muted_topics: Array<[string, string, number]> };
export const mutedTopicsEvent = (muted_topics: Array<[string, string, number]>): MutedTopicsEvent => ({
  type: 'muted_topics',
  muted_topics,
});

/** One setting changed, and its legacy copies (the queue drops them for clients with `user_settings_object`). */
export type UserSettingsEvent = {
  type: 'user_settings';
  op: 'update';
  property: string;
  value: SettingValue;
  language_name?: string;
};
export type UpdateDisplaySettingsEvent = {
  type: 'update_display_settings';
  user: string;
  setting_name: string;
  setting: SettingValue;
  language_name?: string;
};
export type UpdateGlobalNotificationsEvent = {
  type: 'update_global_notifications';
  user: string;
  notification_name: string;
  setting: SettingValue;
};
export type SettingsEvent = UserSettingsEvent | UpdateDisplaySettingsEvent | UpdateGlobalNotificationsEvent;
export const userSettingUpdated = (
  property: string,
  value: SettingValue,
  language_name?: string,
): UserSettingsEvent => ({
  type: 'user_settings',
  op: 'update',
  property,
  value,
  ...(language_name !== undefined && { language_name }),
});
export const displaySettingUpdated = (
  user: string,
  setting_name: string,
  setting: SettingValue,
  language_name?: string,
): UpdateDisplaySettingsEvent => ({
  type: 'update_display_settings',
  user,
  setting_name,
  setting,
  ...(language_name !== undefined && { language_name }),
});
export const notificationSettingUpdated = (
  user: string,
  notification_name: string,
  setting: SettingValue,
): UpdateGlobalNotificationsEvent => ({ type: 'update_global_notifications', user, notification_name, setting });

export type PersonalEvent =
  | ScheduledMessagesEvent
  | RemindersEvent
  | MutedTopicsEvent
  | SettingsEvent
  | PushDeviceEvent
  | DraftsEvent
  | SavedSnippetsEvent
  | NavigationViewEvent
  | MutedUsersEvent
  | AlertWordsEvent
  | UserTopicEvent
  | UpdateMessageFlagsEvent;
