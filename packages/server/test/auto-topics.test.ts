import type { ChatClient } from '@chat/testkit';
import { withServer } from './context.js';
import { newPerson, type Person } from './people.js';
import { next, register, snapshotOf, type Event } from './queues.js';
import { bodyOf, ok, succeeds } from './replies.js';

/**
 * The automatic topic policies, as the original applies them: reacting or
 * voting in a topic is taking part (policy 1 of `automatically_follow_topics_policy`
 * and of `automatically_unmute_topics_in_muted_streams_policy`), and a
 * subscriber mentioned by name follows the topic when
 * `automatically_follow_topics_where_mentioned` is on (not a muted one).
 * Each change reaches the user's queues as a `user_topic` event.
 */
const test = withServer(['iago']);

let channels = 0;

/** A public channel of Iago's with `person` subscribed; answers its name and id. */
async function channelWith(iago: ChatClient, person: Person) {
  channels += 1;
  const name = `auto topics ${channels} ${Date.now()}`;
  await bodyOf(iago.post('/channels/create', { name, subscribers: JSON.stringify([person.user_id]) }));
  const { stream_id } = await ok(iago, 'GET', '/get_stream_id', { stream: name });
  return { name, id: stream_id as number };
}

const say = (client: ChatClient, to: string, topic: string, content: string) =>
  ok(client, 'POST', '/messages', { type: 'stream', to, topic, content });

const topicEvent = (topic: string) => (e: Event) => e.type === 'user_topic' && e.topic_name === topic;

const settings = (person: Person, changes: Record<string, unknown>) =>
  succeeds('PATCH', '/settings', person.client.patch('/settings', changes));

test('reacting follows the topic under the participation policy, not under the default', async (t) => {
  const { iago } = t.context;
  const person = await newPerson(t.context, 'Reactor');
  const channel = await channelWith(iago, person);
  const queue = await register(person.client, { event_types: ['user_topic'] });
  const react = async (topic: string) => {
    const { id } = await say(iago, channel.name, topic, 'react to me');
    await bodyOf(person.client.post(`/messages/${id as number}/reactions`, { emoji_name: 'smile' }));
  };
  // The default (3: topics the user starts) takes no part in a reaction.
  await react('default policy');
  await settings(person, { automatically_follow_topics_policy: 1 });
  await react('participation');
  const followed = await next(queue, topicEvent('participation'));
  t.like(followed, { stream_id: channel.id, visibility_policy: 3 });
  t.true(queue.seen.every((e) => e.topic_name !== 'default policy'));
});

test('voting in a poll is taking part too; in a muted channel the unmute policy unmutes', async (t) => {
  const { iago } = t.context;
  const person = await newPerson(t.context, 'Voter');
  const channel = await channelWith(iago, person);
  await settings(person, {
    automatically_follow_topics_policy: 4,
    automatically_unmute_topics_in_muted_streams_policy: 1,
  });
  const queue = await register(person.client, { event_types: ['user_topic'] });
  const vote = async (topic: string) => {
    const { id } = await say(iago, channel.name, topic, '/poll Yes?\nYes\nNo');
    const content = '{"type":"vote","key":"canned,0","vote":1}';
    await bodyOf(person.client.post('/submessage', { message_id: id as number, msg_type: 'widget', content }));
  };
  await vote('not muted');
  const muted = [{ stream_id: channel.id, property: 'is_muted', value: true }];
  await bodyOf(person.client.post('/users/me/subscriptions/properties', { subscription_data: JSON.stringify(muted) }));
  await vote('muted channel');
  t.like(await next(queue, topicEvent('muted channel')), { stream_id: channel.id, visibility_policy: 2 });
  t.true(queue.seen.every((e) => e.topic_name !== 'not muted'));
});

test('a subscriber mentioned by name follows the topic, unless muted there, silently mentioned or opted out', async (t) => {
  const { iago } = t.context;
  const person = await newPerson(t.context, 'Mention Target');
  const outsider = await newPerson(t.context, 'Mention Outsider');
  const channel = await channelWith(iago, person);
  const queue = await register(person.client, { event_types: ['user_topic'] });
  const mention = `@**Mention Target|${person.user_id}**`;

  const muteTopic = { stream_id: channel.id, topic: 'muted here', visibility_policy: 1 };
  await bodyOf(person.client.post('/user_topics', muteTopic));
  await next(queue, topicEvent('muted here'));
  await say(iago, channel.name, 'muted here', `${mention} hello`);
  await say(iago, channel.name, 'silent', `@_**Mention Target|${person.user_id}** hello`);
  await say(iago, channel.name, 'named', `${mention} hello, and @**Mention Outsider|${outsider.user_id}**`);
  // Iago's messages reach the person in the order sent: none before this one changed a topic.
  t.like(await next(queue, topicEvent('named')), { stream_id: channel.id, visibility_policy: 3 });
  const changed = queue.seen.filter((e) => e.type === 'user_topic').map((e) => [e.topic_name, e.visibility_policy]);
  t.deepEqual(changed, [
    ['muted here', 1],
    ['named', 3],
  ]);
  // The outsider is not subscribed: not a recipient, nothing to follow.
  const { user_topics } = await snapshotOf(outsider.client, { fetch_event_types: ['user_topic'] });
  t.deepEqual(user_topics, []);
});

test('mentions do not follow for who turned automatically_follow_topics_where_mentioned off', async (t) => {
  const { iago } = t.context;
  const person = await newPerson(t.context, 'Mention Optout');
  const channel = await channelWith(iago, person);
  await settings(person, { automatically_follow_topics_where_mentioned: false, automatically_follow_topics_policy: 1 });
  const queue = await register(person.client, { event_types: ['user_topic'] });
  await say(iago, channel.name, 'opted out', `@**Mention Optout|${person.user_id}** hello`);
  // A later change from the same channel: taking part in another topic.
  const { id } = await say(iago, channel.name, 'marker', 'react');
  await bodyOf(person.client.post(`/messages/${id as number}/reactions`, { emoji_name: 'smile' }));
  await next(queue, topicEvent('marker'));
  t.true(queue.seen.every((e) => e.topic_name !== 'opted out'));
});
