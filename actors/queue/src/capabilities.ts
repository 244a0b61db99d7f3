import type { QueueEvent, QueueSpec } from '@chat/protocol';

/** Events only clients without `user_settings_object` hear: the settings' names from before the object existed. */
const LEGACY_SETTINGS_EVENTS = new Set(['update_display_settings', 'update_global_notifications']);

/**
 * Whether a client's declared capabilities let it hear an event, as the
 * original decides per queue: a client that knows `user_settings` events
 * does not get their legacy copies, and channel typing notifications go only
 * to clients that declared they show them.
 */
export function capabilityAllows(spec: QueueSpec, event: QueueEvent): boolean {
  if (LEGACY_SETTINGS_EVENTS.has(event.type)) return !spec.capabilities.user_settings_object;
  // The legacy list of muted topics goes only to clients that did not ask for `user_topic` by name.
  if (event.type === 'muted_topics') return !spec.event_types?.includes('user_topic');
  if (event.type === 'typing' && event.message_type === 'stream')
    return !!spec.capabilities.stream_typing_notifications;
  // Linkifiers with URL templates go only to clients that declared they read them.
  if (event.type === 'realm_linkifiers') return !!spec.capabilities.linkifier_url_template;
  return true;
}
