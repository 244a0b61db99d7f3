import { CHANNEL_PERMISSIONS, streamPostPolicy, type ChannelInfo, type SubscriptionSettings } from '@chat/protocol';

/** A channel in the shape of the reference's basic channel object. */
export function channelJson(info: ChannelInfo, isDefault?: boolean) {
  const permissions = Object.fromEntries(CHANNEL_PERMISSIONS.map((name) => [name, info[name]]));
  return {
    stream_id: info.stream_id,
    name: info.name,
    description: info.description,
    rendered_description: info.rendered_description,
    date_created: info.date_created,
    creator_id: info.creator_id,
    invite_only: info.invite_only,
    is_web_public: info.is_web_public,
    history_public_to_subscribers: info.history_public_to_subscribers,
    first_message_id: info.first_message_id,
    folder_id: info.folder_id,
    is_archived: info.is_archived,
    is_announcement_only: streamPostPolicy(info.can_send_message_group) === 2,
    stream_post_policy: streamPostPolicy(info.can_send_message_group),
    message_retention_days: info.message_retention_days,
    stream_weekly_traffic: null,
    subscriber_count: info.subscribers.length,
    is_recently_active: info.last_message_id !== null,
    topics_policy: info.topics_policy,
    ...permissions,
    ...(isDefault !== undefined ? { is_default: isDefault } : {}),
  };
}

/** A subscription: the channel plus the subscriber's personal settings. */
export function subscriptionJson(info: ChannelInfo, settings: SubscriptionSettings, includeSubscribers: boolean) {
  const { is_default: _ignored, ...channel } = channelJson(info, false);
  return {
    ...channel,
    ...settings,
    in_home_view: !settings.is_muted,
    ...(includeSubscribers ? { subscribers: info.subscribers } : {}),
  };
}
