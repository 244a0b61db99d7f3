import type { SubscriptionSettings, UserSettings } from '@chat/protocol';

/**
 * A subscription's notification setting that is null means "as my global
 * setting". Clients without the `notification_settings_null` capability
 * cannot read null there, so they get the global value filled in, as the
 * original does.
 */
const GLOBAL_OF = {
  desktop_notifications: 'enable_stream_desktop_notifications',
  email_notifications: 'enable_stream_email_notifications',
  push_notifications: 'enable_stream_push_notifications',
  audible_notifications: 'enable_stream_audible_notifications',
  wildcard_mentions_notify: 'wildcard_mentions_notify',
} as const satisfies Partial<Record<keyof SubscriptionSettings, keyof UserSettings>>;

type NotificationProperty = keyof typeof GLOBAL_OF;

export const isNotificationProperty = (name: unknown): name is NotificationProperty =>
  typeof name === 'string' && name in GLOBAL_OF;

export function globalValue(property: NotificationProperty, global: UserSettings): boolean {
  return global[GLOBAL_OF[property]] as boolean;
}

export function withGlobalDefaults(settings: SubscriptionSettings, global: UserSettings): SubscriptionSettings {
  const filled = { ...settings };
  for (const property of Object.keys(GLOBAL_OF) as NotificationProperty[]) {
    filled[property] ??= globalValue(property, global);
  }
  return filled;
}
