/**
 * The register keys Zulip's own clients read without a fallback: a missing
 * one (or one of another type) makes them fail to start. Written from their
 * public source, each key with the file that reads it:
 *
 * - zulip-flutter (the mobile app), lib/api/model/initial_snapshot.dart and
 *   its generated decoder initial_snapshot.g.dart: every non-nullable field
 *   without a default, decoded from the snapshot of `registerQueue`
 *   (lib/api/route/events.dart), which sends `slim_presence` and the
 *   `user_settings_object` capability and no `fetch_event_types`;
 * - zulip-terminal 0.7.0 (PyPI `zulip-term`), `initial_data[...]` in
 *   zulipterminal/model.py, helper.py and ui_tools/*.py, from the snapshot of
 *   `_register_desired_events` with its own `fetch_event_types`, no
 *   `slim_presence` and no client capabilities.
 *
 * `a.b` is key `b` of object `a`; `a[].b` is key `b` of every element of array `a`.
 */
export type KeyType = 'string' | 'number' | 'boolean' | 'array' | 'object' | 'string|null' | 'number|null';

export interface ClientKey {
  path: string;
  type: KeyType;
  file: string;
}

const FLUTTER_SNAPSHOT = 'lib/api/model/initial_snapshot.dart';

export const FLUTTER_KEYS: readonly ClientKey[] = [
  ['last_event_id', 'number'],
  ['zulip_feature_level', 'number'],
  ['zulip_version', 'string'],
  ['zulip_merge_base', 'string'],
  ['alert_words', 'array'],
  ['custom_profile_fields', 'array'],
  ['max_stream_name_length', 'number'],
  ['max_topic_length', 'number'],
  ['server_presence_ping_interval_seconds', 'number'],
  ['server_presence_offline_threshold_seconds', 'number'],
  ['muted_users', 'array'],
  ['presences', 'object'],
  ['realm_emoji', 'object'],
  ['realm_user_groups', 'array'],
  ['recent_private_conversations', 'array'],
  ['subscriptions', 'array'],
  ['unread_msgs', 'object'],
  ['unread_msgs.count', 'number'],
  ['unread_msgs.pms', 'array'],
  ['unread_msgs.pms[].other_user_id', 'number'],
  ['unread_msgs.pms[].unread_message_ids', 'array'],
  ['unread_msgs.streams', 'array'],
  ['unread_msgs.streams[].topic', 'string'],
  ['unread_msgs.streams[].stream_id', 'number'],
  ['unread_msgs.streams[].unread_message_ids', 'array'],
  ['unread_msgs.huddles', 'array'],
  ['unread_msgs.mentions', 'array'],
  ['starred_messages', 'array'],
  ['streams', 'array'],
  ['user_status', 'object'],
  ['user_settings', 'object'],
  ['user_settings.starred_message_counts', 'boolean'],
  ['user_settings.display_emoji_reaction_users', 'boolean'],
  ['user_settings.emojiset', 'string'],
  ['user_settings.presence_enabled', 'boolean'],
  ['user_topics', 'array'],
  ['realm_wildcard_mention_policy', 'number'],
  ['realm_name', 'string'],
  ['realm_waiting_period_threshold', 'number'],
  ['realm_allow_message_editing', 'boolean'],
  ['realm_enable_read_receipts', 'boolean'],
  ['realm_icon_url', 'string'],
  ['realm_presence_disabled', 'boolean'],
  ['realm_default_external_accounts', 'object'],
  ['max_file_upload_size_mib', 'number'],
  ['server_emoji_data_url', 'string'],
  ['event_queue_longpoll_timeout_seconds', 'number'],
  ['realm_users', 'array'],
  ['realm_non_active_users', 'array'],
  ['cross_realm_bots', 'array'],
].map(([path, type]) => ({ path: path!, type: type as KeyType, file: FLUTTER_SNAPSHOT }));

const MODEL = 'zulipterminal/model.py';
const HELPER = 'zulipterminal/helper.py';
const BOXES = 'zulipterminal/ui_tools/boxes.py';
const VIEWS = 'zulipterminal/ui_tools/views.py';

export const TERMINAL_KEYS: readonly ClientKey[] = (
  [
    ['zulip_version', 'string', MODEL],
    ['queue_id', 'string', MODEL],
    ['last_event_id', 'number', MODEL],
    ['max_message_id', 'number', MODEL],
    ['user_id', 'number', MODEL],
    ['email', 'string', MODEL],
    ['full_name', 'string', MODEL],
    ['realm_name', 'string', MODEL],
    ['subscriptions', 'array', MODEL],
    ['subscriptions[].stream_id', 'number', MODEL],
    ['subscriptions[].name', 'string', MODEL],
    ['subscriptions[].color', 'string', MODEL],
    ['subscriptions[].description', 'string', MODEL],
    ['subscriptions[].in_home_view', 'boolean', MODEL],
    ['subscriptions[].pin_to_top', 'boolean', MODEL],
    ['subscriptions[].desktop_notifications', 'boolean', MODEL],
    ['subscriptions[].message_retention_days', 'number|null', MODEL],
    ['muted_topics', 'array', MODEL],
    ['realm_user_groups', 'array', MODEL],
    ['realm_user_groups[].id', 'number', MODEL],
    ['realm_user_groups[].name', 'string', MODEL],
    ['realm_user_groups[].members', 'array', MODEL],
    ['realm_emoji', 'object', MODEL],
    ['twenty_four_hour_time', 'boolean', MODEL],
    ['pm_content_in_desktop_notifications', 'boolean', MODEL],
    ['realm_message_retention_days', 'number', MODEL],
    ['presences', 'object', MODEL],
    ['realm_users', 'array', MODEL],
    ['realm_users[].user_id', 'number', MODEL],
    ['realm_users[].email', 'string', MODEL],
    ['realm_users[].full_name', 'string', MODEL],
    ['cross_realm_bots', 'array', MODEL],
    ['unread_msgs', 'object', HELPER],
    ['unread_msgs.mentions', 'array', HELPER],
    ['unread_msgs.pms', 'array', HELPER],
    ['unread_msgs.pms[].sender_id', 'number', HELPER],
    ['unread_msgs.pms[].unread_message_ids', 'array', HELPER],
    ['unread_msgs.streams', 'array', HELPER],
    ['unread_msgs.streams[].stream_id', 'number', HELPER],
    ['unread_msgs.streams[].topic', 'string', HELPER],
    ['unread_msgs.streams[].unread_message_ids', 'array', HELPER],
    ['unread_msgs.huddles', 'array', HELPER],
    ['realm_allow_message_editing', 'boolean', BOXES],
    ['realm_message_content_edit_limit_seconds', 'number', BOXES],
    ['realm_allow_edit_history', 'boolean', VIEWS],
    ['starred_messages', 'array', VIEWS],
  ] as const
).map(([path, type, file]) => ({ path, type, file }));

/** zulip-terminal 0.7.0's `initial_data_to_fetch` (its `fetch_event_types`) and `event_actions` (its `event_types`). */
export const TERMINAL_REGISTER = {
  fetch_event_types: [
    'realm',
    'presence',
    'subscription',
    'message',
    'starred_messages',
    'update_message_flags',
    'muted_topics',
    'realm_user',
    'realm_user_groups',
    'update_global_notifications',
    'update_display_settings',
    'user_settings',
    'realm_emoji',
    'zulip_version',
  ],
  event_types: [
    'message',
    'update_message',
    'reaction',
    'subscription',
    'typing',
    'update_message_flags',
    'update_global_notifications',
    'update_display_settings',
    'user_settings',
    'realm_emoji',
  ],
  client_gravatar: true,
  apply_markdown: true,
  include_subscribers: true,
};

/** zulip-flutter's `registerQueue` parameters (lib/api/route/events.dart). */
export const FLUTTER_REGISTER = {
  apply_markdown: true,
  client_gravatar: false,
  slim_presence: true,
  client_capabilities: {
    notification_settings_null: true,
    bulk_message_deletion: true,
    user_avatar_url_field_optional: true,
    stream_typing_notifications: true,
    user_settings_object: true,
    include_deactivated_groups: true,
    empty_topic_name: true,
    individual_emoji_changes: true,
  },
};

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'array' : typeof value;
}

/** Where `body` lacks a key of `keys` or has it with another type: "path: why (file)". */
export function missingKeys(body: unknown, keys: readonly ClientKey[]): string[] {
  const problems: string[] = [];
  for (const { path, type, file } of keys) {
    const allowed = type.split('|');
    const check = (value: unknown, rest: string[], at: string): void => {
      if (rest.length === 0) {
        if (!allowed.includes(typeOf(value)))
          problems.push(`${path}: ${typeOf(value)} at ${at}, not ${type} (${file})`);
        return;
      }
      const [step, ...more] = rest as [string, ...string[]];
      const each = step.endsWith('[]');
      const name = each ? step.slice(0, -2) : step;
      if (typeOf(value) !== 'object' || !Object.hasOwn(value as object, name)) {
        problems.push(`${path}: no ${name} at ${at || 'top level'} (${file})`);
        return;
      }
      const inner = (value as Record<string, unknown>)[name];
      if (!each) return check(inner, more, `${at}${at ? '.' : ''}${name}`);
      if (!Array.isArray(inner)) return void problems.push(`${path}: ${name} is not an array (${file})`);
      inner.forEach((item, i) => check(item, more, `${at}${at ? '.' : ''}${name}[${i}]`));
    };
    check(body, path.split('.'), '');
  }
  return problems;
}
