import { userTopicEvent, VISIBILITY } from '@chat/protocol';
import type { Decision } from '@chat/runtime';
import { toOwnQueues } from './queues.js';
import { settingOf } from './settings.js';
import { topicKey, type UserEvent, type UserState } from './state.js';

/**
 * The original's automatic topic policies (`automatically_follow_topics_policy`,
 * `automatically_unmute_topics_in_muted_streams_policy`, 1 participation, 2
 * send, 3 initiation, 4 never; `automatically_follow_topics_where_mentioned`).
 * They only raise a topic's visibility: a followed topic stays so.
 */
const PARTICIPATION = 1;
const SEND = 2;
const INITIATION = 3;

const currentPolicy = (state: UserState, channelId: number, topic: string) =>
  state.topics[topicKey(channelId, topic)]?.visibility_policy ?? VISIBILITY.inherit;

const channelMuted = (state: UserState, channelId: number) => state.subscriptions[channelId]?.is_muted ?? false;

/** What one kind of action earns: followed by the follow policy, else unmuted in a muted channel. */
function earned(state: UserState, channelId: number, kind: number): number | undefined {
  if (state.followPolicy === kind) return VISIBILITY.followed;
  if (channelMuted(state, channelId) && state.unmutePolicy === kind) return VISIBILITY.unmuted;
  return undefined;
}

/** The policy a message the user sent sets (`new_topic`: the first of its topic), or undefined. */
export function policyOnSend(
  state: UserState,
  channelId: number,
  topic: string,
  newTopic: boolean,
): number | undefined {
  const current = currentPolicy(state, channelId, topic);
  if (current === VISIBILITY.followed) return undefined;
  const earnedNow = [earned(state, channelId, PARTICIPATION), earned(state, channelId, SEND)];
  if (earnedNow.includes(VISIBILITY.followed)) return VISIBILITY.followed;
  const unmuted = earnedNow.includes(VISIBILITY.unmuted) ? VISIBILITY.unmuted : undefined;
  // Starting a topic counts only while the user has set nothing for it.
  if (current !== VISIBILITY.inherit) return unmuted === current ? undefined : unmuted;
  return (newTopic ? earned(state, channelId, INITIATION) : undefined) ?? unmuted;
}

/** Reacting or adding to a widget, as a subscriber: the participation policy. */
function policyOnParticipation(state: UserState, channelId: number, topic: string): number | undefined {
  if (!state.subscriptions[channelId]) return undefined;
  const policy = earned(state, channelId, PARTICIPATION);
  const current = currentPolicy(state, channelId, topic);
  return policy === undefined || policy === current || current === VISIBILITY.followed ? undefined : policy;
}

/** Mentioned by name in a channel one is subscribed to: followed, unless muted or already followed. */
function policyOnMention(state: UserState, channelId: number, topic: string): number | undefined {
  if (!state.subscriptions[channelId] || settingOf(state, 'automatically_follow_topics_where_mentioned') !== true) {
    return undefined;
  }
  const current = currentPolicy(state, channelId, topic);
  return current === VISIBILITY.muted || current === VISIBILITY.followed ? undefined : VISIBILITY.followed;
}

/** Sets the topic's policy, with the `user_topic` event to the user's queues. */
export function setPolicy(
  key: string,
  state: UserState,
  at: number,
  topic: { channel_id: number; topic: string },
  policy: number,
): Decision<UserEvent, never> {
  return {
    events: [{ type: 'topicPolicySet', channelId: topic.channel_id, topic: topic.topic, policy, at }],
    tells: toOwnQueues(key, state, [userTopicEvent(topic.channel_id, topic.topic, policy, at)]),
  };
}

/** `user.topicActivity`: what the user's participation in, or a mention in, a channel topic sets. */
export function decideTopicActivity(
  key: string,
  state: UserState,
  at: number,
  activity: { channel_id: number; topic: string; reason: 'participated' | 'mentioned' },
): Decision<UserEvent, null> {
  const { channel_id: channelId, topic } = activity;
  const policy =
    activity.reason === 'mentioned'
      ? policyOnMention(state, channelId, topic)
      : policyOnParticipation(state, channelId, topic);
  if (policy === undefined) return { reply: null };
  return { ...setPolicy(key, state, at, activity, policy), reply: null };
}
