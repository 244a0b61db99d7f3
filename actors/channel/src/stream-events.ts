import {
  sameGroupSetting,
  streamPostPolicy,
  streamUpdated,
  type ChannelChanges,
  type ChannelSettings,
  type QueueEvent,
} from '@chat/protocol';

const PRIVACY = ['invite_only', 'history_public_to_subscribers', 'is_web_public'];

/**
 * One `stream` op `update` event per property that really changed, in the
 * reference's shape. `name` is the channel's name before the change (what
 * clients know it by). As in the original, `rendered_description` travels
 * with `description`, and a change of any privacy field (made web-public,
 * say) is one `invite_only` event carrying the settled three (its
 * `do_change_stream_permission`).
 */
export function streamUpdates(before: ChannelSettings, changes: ChannelChanges): QueueEvent[] {
  const { permissions, ...plain } = changes;
  const after = { ...before, ...plain };
  const events: QueueEvent[] = [];
  let privacy = false;
  for (const [property, value] of Object.entries(plain)) {
    if (property === 'rendered_description' || before[property as keyof ChannelSettings] === value) continue;
    if (PRIVACY.includes(property)) {
      if (privacy) continue;
      privacy = true;
      const settled = {
        history_public_to_subscribers: after.history_public_to_subscribers,
        is_web_public: after.is_web_public,
      };
      events.push(streamUpdated(before, 'invite_only', after.invite_only, settled));
      continue;
    }
    const extra = property === 'description' ? { rendered_description: after.rendered_description } : {};
    events.push(streamUpdated(before, property, value, extra));
  }
  for (const [property, change] of Object.entries(permissions ?? {})) {
    if (!sameGroupSetting(change.new, before[property as keyof typeof permissions])) {
      events.push(streamUpdated(before, property, change.new));
    }
  }
  // And, as the original still does, the deprecated fields read from `can_send_message_group` when they change.
  const sending = permissions?.can_send_message_group;
  const policy = sending && streamPostPolicy(sending.new);
  if (sending && policy !== streamPostPolicy(before.can_send_message_group)) {
    events.push(streamUpdated(before, 'stream_post_policy', policy));
    events.push(streamUpdated(before, 'is_announcement_only', policy === 2));
  }
  return events;
}
