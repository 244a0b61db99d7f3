import test from 'ava';
import { ROLES } from '@chat/protocol';
import { channel, conversation, created, person, prepared, realmSettings, send } from './fixtures.js';

const member = person(2);
const GENERAL_CHAT_REFUSED = 'Sending messages to the general chat is not allowed in this channel.';
const ONLY_GENERAL_CHAT = 'Only the general chat topic is allowed in this channel.';

test('a channel that inherits the topics policy follows the realm: empty topic refused where the realm disables it', async (t) => {
  const kit = channel(10, created(10, [2]));
  const settings = realmSettings({ topics_policy: 'disable_empty_topic' });
  const empty = await kit.run(send(member, '', { settings }));
  t.is(empty.error?.code, 'BAD_REQUEST');
  t.is(empty.error?.message, GENERAL_CHAT_REFUSED);
  t.deepEqual(empty.events, []);
  const named = await kit.run(send(member, 'lunch', { settings }));
  t.is(named.error, undefined);
  t.is(named.events[0]?.type, 'messageSent');
  t.deepEqual(await kit.run(send(member, '')).then((r) => r.error), undefined);
});

test("a channel's own topics policy overrides the realm's", async (t) => {
  const settings = realmSettings({ topics_policy: 'disable_empty_topic' });
  const allowing = channel(10, created(10, [2], { topics_policy: 'allow_empty_topic' }));
  t.is((await allowing.run(send(member, '', { settings }))).error, undefined);
  const disabling = channel(11, created(11, [2], { topics_policy: 'disable_empty_topic' }));
  t.is((await disabling.run(send(member, ''))).error?.message, GENERAL_CHAT_REFUSED);
});

test('a channel for the general chat only refuses named topics, and notices of the notification bot too', async (t) => {
  const kit = channel(10, created(10, [2], { topics_policy: 'empty_topic_only' }));
  t.is((await kit.run(send(member, 'lunch'))).error?.message, ONLY_GENERAL_CHAT);
  t.is((await kit.run(send(person(99), 'moved', { internal: true }))).error?.message, ONLY_GENERAL_CHAT);
  const general = await kit.run(send(member, ''));
  t.is(general.error, undefined);
  t.is(general.state.messages[0]?.topic, '');
});

test('a policy changed later applies to the next message', async (t) => {
  const kit = channel(10, created(10, [2]), {
    type: 'channelUpdated',
    changes: { topics_policy: 'empty_topic_only' },
  });
  t.is((await kit.run(send(member, 'lunch'))).error?.message, ONLY_GENERAL_CHAT);
});

test('a direct message has no topic, whatever the command names', async (t) => {
  const dm = await conversation('zulip:dm:2,3').run(
    send(member, 'ignored', { settings: realmSettings({ topics_policy: 'disable_empty_topic' }) }),
  );
  t.is(dm.error, undefined);
  t.deepEqual(
    dm.events.map((e) => e.type),
    ['dmOpened', 'messageSent'],
  );
  t.is(dm.state.messages[0]?.topic, '');
});

const many = [2, 3, 4, 5, 6];
const channelWildcard = (sender = member, threshold = 4) =>
  send(sender, 'lunch', { prepared: prepared('@**all**', { channel_wildcard: true }), wildcard_threshold: threshold });

test('a channel wildcard reaching more subscribers than the threshold needs can_mention_many_users_group', async (t) => {
  const kit = channel(10, created(10, many));
  const refused = await kit.run(channelWildcard());
  t.is(refused.error?.code, 'STREAM_WILDCARD_MENTION_NOT_ALLOWED');
  t.is(refused.error?.message, 'You do not have permission to use channel wildcard mentions in this channel.');
  t.is((await kit.run(channelWildcard(member, 5))).error, undefined, 'at the threshold it is allowed');
  t.is((await kit.run(channelWildcard(person(3, ROLES.administrator)))).error, undefined, 'administrators may');
  const everyone = realmSettings({ can_mention_many_users_group: { direct_members: [2], direct_subgroups: [] } });
  t.is((await kit.run({ ...channelWildcard(), settings: everyone })).error, undefined, 'a group naming the sender');
});

test('a topic wildcard counts the distinct senders of the topic, the sender included', async (t) => {
  const kit = channel(10, created(10, many));
  for (const id of [3, 4, 5]) await kit.run(send(person(id), 'Lunch'));
  await kit.run(send(person(6), 'other topic'));
  const topicWildcard = (topic: string, threshold: number) =>
    send(member, topic, { prepared: prepared('@**topic**', { topic_wildcard: true }), wildcard_threshold: threshold });
  // Senders 3, 4, 5 plus the sender 2: four people; the topic is compared without case.
  const refused = await kit.run(topicWildcard('lunch', 3));
  t.is(refused.error?.code, 'TOPIC_WILDCARD_MENTION_NOT_ALLOWED');
  t.is(refused.error?.message, 'You do not have permission to use topic wildcard mentions in this topic.');
  const allowed = await kit.run(topicWildcard('lunch', 4));
  t.is(allowed.error, undefined);
  const body = allowed.fanouts.at(-1)?.body;
  const event = (body?.type === 'user.deliver' ? body.events : []) as Array<{ topic_participants?: number[] }>;
  t.deepEqual(event[0]?.topic_participants?.sort(), [3, 4, 5]);
  t.is((await kit.run(topicWildcard('other topic', 1))).error?.code, 'TOPIC_WILDCARD_MENTION_NOT_ALLOWED');
  t.is((await kit.run(topicWildcard('new topic', 1))).error, undefined, 'a new topic has only its sender');
});

test('wildcards are not limited in direct messages', async (t) => {
  const dm = await conversation('zulip:dm:2,3,4,5,6,7').run(
    send(member, '', { prepared: prepared('@**all**', { channel_wildcard: true }), wildcard_threshold: 1 }),
  );
  t.is(dm.error, undefined);
});
