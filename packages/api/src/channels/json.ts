import { CHANNEL_PERMISSIONS, streamPostPolicy, type ChannelInfo, type SubscriptionSettings } from '@chat/protocol';
import type { CallerContext } from '../context.js';

/** Whole subscriber lists are always sent for channels smaller than this (the reference's promise). */
export const SMALL_CHANNEL = 250;
/** A big channel's `partial_subscribers` holds at least its bots and those active this many days back. */
const RECENT_DAYS = 14;

/**
 * What `include_subscribers` asks for: no lists, every list, or (`partial`)
 * every list of a small channel and, of a big one, only these users.
 */
export type SubscriberLists = boolean | { partial: ReadonlySet<number> };

/**
 * The lists to send with these channels. `partial` asks the realm who was
 * recently active only when one of them is big.
 */
export async function subscriberLists(
  caller: CallerContext,
  include: boolean | 'partial' | undefined,
  infos: ChannelInfo[],
): Promise<SubscriberLists> {
  if (include !== 'partial') return include ?? false;
  if (infos.every((info) => info.subscribers.length < SMALL_CHANNEL)) return true;
  const recent = await caller.actors.ask(caller.realm, { type: 'realm.recentlyActive', days: RECENT_DAYS });
  return { partial: new Set(recent) };
}

function subscribersOf(info: ChannelInfo, lists: SubscriberLists) {
  if (lists === false) return {};
  if (lists === true || info.subscribers.length < SMALL_CHANNEL) return { subscribers: info.subscribers };
  return { partial_subscribers: info.subscribers.filter((id) => lists.partial.has(id)) };
}

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
export function subscriptionJson(info: ChannelInfo, settings: SubscriptionSettings, lists: SubscriberLists) {
  return {
    ...channelJson(info),
    ...settings,
    in_home_view: !settings.is_muted,
    ...subscribersOf(info, lists),
  };
}

/** A channel the user was never subscribed to (register's `never_subscribed`): the channel as `GET /streams` has it. */
export function neverSubscribedJson(info: ChannelInfo, lists: SubscriberLists) {
  return { ...channelJson(info), ...subscribersOf(info, lists) };
}
