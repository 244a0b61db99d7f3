import test from 'ava';
import { BehaviorTestKit } from '@chat/runtime/testkit';
import { userBehavior } from '../src/index.js';

/**
 * The automatic topic policies as the original decides them
 * (`visibility_policy_for_send_message`, `visibility_policy_for_participation`,
 * `should_change_visibility_policy`): 1 participation, 2 send, 3 initiation,
 * 4 never; visibility 1 muted, 2 unmuted, 3 followed.
 */
const channelKey = 'zulip:7';

async function user(follow: number, unmute: number, muted = false) {
  const k = new BehaviorTestKit(userBehavior, { key: 'zulip:5', now: Date.UTC(2026, 0, 1) }).given([
    { type: 'subscribed', channelKey, channelId: 7, color: '#fff', lastMessageId: 0 },
    ...(muted
      ? [{ type: 'subscriptionChanged' as const, channelId: 7, property: 'is_muted' as const, value: true }]
      : []),
  ]);
  const settings = {
    automatically_follow_topics_policy: follow,
    automatically_unmute_topics_in_muted_streams_policy: unmute,
  };
  await k.run({ type: 'user.updateSettings', settings, email: 'u@zulip.com' });
  return k;
}

type Kit = Awaited<ReturnType<typeof user>>;

const setTopic = (k: Kit, topic: string, visibility_policy: number) =>
  k.run({ type: 'user.setTopic', channel_id: 7, topic, visibility_policy });

async function sent(k: Kit, topic: string, newTopic: boolean) {
  const topicFacts = { channel_id: 7, topic, new_topic: newTopic };
  const { reply } = await k.run({ type: 'user.sent', key: channelKey, message_id: 1, read: true, topic: topicFacts });
  return (reply as { automatic_new_visibility_policy?: number }).automatic_new_visibility_policy;
}

const policyOf = (k: Kit, topic: string) =>
  Object.values(k.state.topics).find((x) => x.topic_name === topic)?.visibility_policy;

test('sending: follow by participation or send always, by initiation only a new topic', async (t) => {
  t.is(await sent(await user(1, 4), 'old', false), 3);
  t.is(await sent(await user(2, 4), 'old', false), 3);
  t.is(await sent(await user(3, 4), 'old', false), undefined);
  t.is(await sent(await user(3, 4), 'new', true), 3);
  t.is(await sent(await user(4, 4), 'new', true), undefined);
});

test('sending in a muted channel unmutes under the unmute policy; following wins', async (t) => {
  t.is(await sent(await user(4, 2, true), 'old', false), 2);
  t.is(await sent(await user(4, 2, false), 'old', false), undefined);
  t.is(await sent(await user(4, 3, true), 'new', true), 2);
  t.is(await sent(await user(2, 2, true), 'old', false), 3);
  // A topic the user muted is unmuted by sending; one already unmuted or followed is left.
  const k = await user(4, 1, true);
  await setTopic(k, 'muted', 1);
  t.is(await sent(k, 'muted', false), 2);
  t.is(await sent(k, 'muted', false), undefined);
  // Starting a topic counts only while the user set nothing for it.
  const starter = await user(3, 4);
  await setTopic(starter, 'preset', 1);
  t.is(await sent(starter, 'preset', true), undefined);
});

test('taking part follows under policy 1 only, as a subscriber; a mention follows unless muted', async (t) => {
  const k = await user(1, 4);
  await k.run({ type: 'user.topicActivity', channel_id: 7, topic: 'voted', reason: 'participated' });
  t.is(policyOf(k, 'voted'), 3);
  await k.run({ type: 'user.topicActivity', channel_id: 8, topic: 'elsewhere', reason: 'participated' });
  t.is(policyOf(k, 'elsewhere'), undefined);
  const byDefault = await user(3, 2);
  await byDefault.run({ type: 'user.topicActivity', channel_id: 7, topic: 'reacted', reason: 'participated' });
  t.is(policyOf(byDefault, 'reacted'), undefined);
  await byDefault.run({ type: 'user.topicActivity', channel_id: 7, topic: 'mentioned', reason: 'mentioned' });
  t.is(policyOf(byDefault, 'mentioned'), 3);
  await setTopic(byDefault, 'quiet', 1);
  await byDefault.run({ type: 'user.topicActivity', channel_id: 7, topic: 'quiet', reason: 'mentioned' });
  t.is(policyOf(byDefault, 'quiet'), 1);
  t.deepEqual(byDefault.replay(), byDefault.state);
});
