import {
  ChatError,
  channelOfKey,
  inGroupSetting,
  noChannelWithId,
  readsThroughGroups,
  realmAddress,
  realmOfKey,
  type ChannelCommand,
  type MessageQueueEvent,
  type RealmSettings,
  type StoredMessage,
  participantsOfKey,
} from '@chat/protocol';
import type { ActorContext } from '@chat/runtime';
import { can, hasContentAccess, isMember } from './access.js';
import { fanout, messageForEvent, topicActivity } from './events.js';
import { toUsers } from './members.js';
import { toPublicListeners } from './public-relay.js';
import { widgetSubmessages } from './submessage.js';
import { widgetFromRequest } from './widgets/content.js';
import { lastMessageId, type ChannelEvent, type ChannelState, type ChannelDecision } from './state.js';

type Send = Extract<ChannelCommand, { type: 'message.send' }>;

export function effectiveTopicsPolicy(state: ChannelState, settings: RealmSettings) {
  const policy = state.channel?.topics_policy ?? 'allow_empty_topic';
  return policy === 'inherit' ? settings.topics_policy : policy;
}

/** The topics policy decides whether the empty topic ("general chat") may be used. */
export function checkTopic(state: ChannelState, topic: string, settings: RealmSettings): void {
  const policy = effectiveTopicsPolicy(state, settings);
  if (topic === '' && policy === 'disable_empty_topic') {
    throw new ChatError('BAD_REQUEST', 'Sending messages to the general chat is not allowed in this channel.');
  }
  if (topic !== '' && policy === 'empty_topic_only') {
    throw new ChatError('BAD_REQUEST', 'Only the general chat topic is allowed in this channel.');
  }
}

/** Distinct senders of a topic: who a topic wildcard mention reaches. */
export function topicParticipants(state: ChannelState, topic: string): Set<number> {
  const key = topic.toLowerCase();
  const senders = new Set<number>();
  for (const m of state.messages) if (m.topic.toLowerCase() === key) senders.add(m.sender_id);
  return senders;
}

/** Wildcard mentions that would notify many people need `can_mention_many_users_group`. */
export function checkWildcards(
  state: ChannelState,
  cmd: Pick<Send, 'sender' | 'settings' | 'wildcard_threshold'> & { topic: string },
  facts: { channel_wildcard: boolean; topic_wildcard: boolean },
): void {
  if (state.kind !== 'channel' || inGroupSetting(cmd.settings.can_mention_many_users_group, cmd.sender)) return;
  if (facts.channel_wildcard && state.members.length > cmd.wildcard_threshold) {
    throw new ChatError(
      'STREAM_WILDCARD_MENTION_NOT_ALLOWED',
      'You do not have permission to use channel wildcard mentions in this channel.',
    );
  }
  if (facts.topic_wildcard) {
    const participants = topicParticipants(state, cmd.topic);
    participants.add(cmd.sender.user_id);
    if (participants.size > cmd.wildcard_threshold) {
      throw new ChatError(
        'TOPIC_WILDCARD_MENTION_NOT_ALLOWED',
        'You do not have permission to use topic wildcard mentions in this topic.',
      );
    }
  }
}

function checkChannelSend(state: ChannelState, cmd: Send): void {
  const channel = state.channel!;
  const sender = cmd.sender;
  const refused = () => new ChatError('BAD_REQUEST', `Not authorized to send to channel '${channel.name}'`);
  if (channel.is_archived) throw refused();
  // The notification bot posts move notices wherever they belong, as the original's system bots do.
  if (cmd.internal) return checkTopic(state, cmd.topic, cmd.settings);
  // Content access lets one post (guests in web-public channels too), but a group's grant
  // to a private channel only where its history is public, as the original's access_stream_for_send_message.
  if (!hasContentAccess(state, sender)) throw refused();
  if (readsThroughGroups(sender, channel, isMember(state, sender.user_id)) && !channel.history_public_to_subscribers)
    throw refused();
  if (!can(state, 'can_send_message_group', sender)) {
    throw new ChatError('BAD_REQUEST', 'You do not have permission to post in this channel.');
  }
  checkTopic(state, cmd.topic, cmd.settings);
}

/**
 * The realm's next message id (`actors/realm/src/message-ids.ts`), asked
 * once the send is allowed, so a refused send uses none. The conversation
 * waits for it, so its own ids grow in the order of its messages.
 */
function nextMessageId(ctx: ActorContext<ChannelState>): Promise<number> {
  const realm = realmAddress(realmOfKey(ctx.address.key));
  return ctx.actors.ask(realm, { type: 'realm.nextMessageId', floor: lastMessageId(ctx.state) });
}

const mentionedMembers = (state: ChannelState, ids: number[] | undefined) =>
  state.kind === 'channel' ? (ids ?? []).filter((id) => state.members.includes(id)) : [];

/** Refuses what a send of `cmd` to this conversation would refuse; the widget it carries, if any. */
export function checkSend(state: ChannelState, key: string, cmd: Send): string | undefined {
  if (state.kind === 'none' && !participantsOfKey(key)) throw noChannelWithId(channelOfKey(key));
  if (state.kind === 'channel') checkChannelSend(state, cmd);
  const topic = state.kind === 'channel' ? cmd.topic : '';
  checkWildcards(state, { ...cmd, topic }, cmd.prepared);
  return cmd.widget_content === undefined ? undefined : widgetFromRequest(cmd.widget_content);
}

export async function decideSend(ctx: ActorContext<ChannelState>, cmd: Send): Promise<ChannelDecision<'message.send'>> {
  const state = ctx.state;
  const events: ChannelEvent[] = [];
  const widget = checkSend(state, ctx.address.key, cmd);
  if (state.kind === 'none') events.push({ type: 'dmOpened', userIds: participantsOfKey(ctx.address.key)! });
  const topic = state.kind === 'channel' ? cmd.topic : '';
  const { content, rendered, group_member_ids, mentioned_human_ids, ...facts } = cmd.prepared;
  const message: StoredMessage = {
    ...facts,
    id: await nextMessageId(ctx),
    sender_id: cmd.sender.user_id,
    timestamp: Math.floor(ctx.now / 1000),
    topic,
    content,
    rendered,
    client: cmd.client,
    group_member_ids,
    reactions: [],
    edits: [],
    last_edit_timestamp: null,
    last_moved_timestamp: null,
  };
  const submessages = widgetSubmessages(message, widget);
  if (submessages.length > 0) message.submessages = submessages;
  events.push({ type: 'messageSent', message });
  const members = state.kind === 'none' ? participantsOfKey(ctx.address.key)! : state.members;
  const newTopic =
    state.kind === 'channel' && !state.messages.some((m) => m.topic.toLowerCase() === topic.toLowerCase());
  const conversation = state.kind === 'channel' ? [] : conversationRecords(ctx.address.key, members, message.id, cmd);
  const event: MessageQueueEvent = {
    type: 'message',
    message: messageForEvent(state, ctx.address.key, message),
    people: cmd.people,
    read_by_sender: cmd.read_by_sender,
    ...(cmd.mark_read ? { read_by: cmd.mark_read } : {}),
    channel_is_public: state.channel ? !state.channel.invite_only : false,
    channel_is_web_public: state.channel?.is_web_public ?? false,
    ...(cmd.local ? { local: cmd.local } : {}),
    ...(message.topic_wildcard ? { topic_participants: [...topicParticipants(state, topic)] } : {}),
  };
  // The sender hears of its own message even when not subscribed.
  const recipients = [...new Set([...members, cmd.sender.user_id])];
  return {
    events,
    fanouts: [
      ...conversation,
      fanout(ctx.address.key, recipients, [event]),
      // Subscribers mentioned by name may follow the topic.
      ...topicActivity(state, ctx.address.key, mentionedMembers(state, mentioned_human_ids), topic, 'mentioned'),
    ],
    tells: toPublicListeners(state, ctx.address.key, [event], recipients),
    reply: { id: message.id, new_topic: newTopic },
  };
}

/**
 * Each participant's record of the conversation (`user.conversation`); a restricted guest's carries the
 * adds the send owes him (`access`), which his UserActor passes on before the message that follows.
 */
function conversationRecords(key: string, members: number[], messageId: number, cmd: Send) {
  const record = { type: 'user.conversation', key, user_ids: members, message_id: messageId } as const;
  const owed = (cmd.access ?? []).filter((a) => members.includes(a.user_id) && a.events.length > 0);
  const rest = members.filter((id) => !owed.some((a) => a.user_id === id));
  return [
    ...(rest.length > 0 ? [toUsers(key, rest, record)] : []),
    ...owed.map((a) => toUsers(key, [a.user_id], { ...record, access: a.events })),
  ];
}
