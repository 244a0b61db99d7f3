import {
  flagsUpdated,
  inRanges,
  isMessageEvent,
  subscriptionUpdated,
  queueAddress,
  realmOfKey,
  type EditFlagFacts,
  type FlagTarget,
  type QueueEvent,
  type UserCommand,
  userOfKey,
} from '@chat/protocol';
import type { Decision } from '@chat/runtime';
import type { UserEvent, UserState } from './state.js';

type MentionFacts = Omit<EditFlagFacts, 'key'>;

/** The flags a message's content gives one recipient, as the original computes them. */
function mentionFlags(userId: number, m: MentionFacts): string[] {
  const own = m.sender_id === userId;
  const flags: string[] = [];
  if (m.mentioned_user_ids.includes(userId) || m.group_member_ids.includes(userId)) flags.push('mentioned');
  if (!own && m.is_channel) {
    const topicWildcard = m.topic_wildcard && m.topic_participants.includes(userId);
    if (m.channel_wildcard) flags.push('stream_wildcard_mentioned');
    if (topicWildcard) flags.push('topic_wildcard_mentioned');
    if (m.channel_wildcard || topicWildcard) flags.push('wildcard_mentioned');
  }
  return flags;
}

/** A message event's flags for one recipient, as the original gives them at send time. */
function flagsOf(userId: number, event: Extract<QueueEvent, { type: 'message' }>): string[] {
  const m = event.message;
  // The facts alone, not a copy of the whole message per recipient.
  const flags = mentionFlags(userId, {
    sender_id: m.sender_id,
    mentioned_user_ids: m.mentioned_user_ids,
    group_member_ids: m.group_member_ids,
    channel_wildcard: m.channel_wildcard,
    topic_wildcard: m.topic_wildcard,
    is_channel: m.channel_id !== null,
    topic_participants: event.topic_participants ?? [],
  });
  if (m.sender_id === userId && event.read_by_sender !== false) flags.unshift('read');
  return flags;
}

/** An edited message's flags for one recipient: their read and starred state, and what the content says. */
function editFlags(userId: number, state: UserState, messageId: number, facts: EditFlagFacts): string[] {
  const read =
    facts.sender_id === userId
      ? !state.unreadOwn.includes(messageId)
      : inRanges(state.read[facts.key] ?? [], messageId);
  const own = [...(read ? ['read'] : []), ...(state.starred.includes(messageId) ? ['starred'] : [])];
  return [...own, ...mentionFlags(userId, facts)];
}

function personalize(userId: number, state: UserState, event: QueueEvent, extra: Map<number, string[]>): QueueEvent {
  if (isMessageEvent(event)) {
    const own = flagsOf(userId, event);
    const more = extra.get(event.message.id);
    const flags = more ? [...new Set([...own, ...more])] : own;
    return { ...event, message: { ...event.message, flags } };
  }
  if (event.type !== 'update_message' || !event.personal) return event;
  const { personal, ...rest } = event;
  return { ...rest, flags: editFlags(userId, state, event.message_id, personal) };
}

/** `realm:10` -> 10: the user a UserActor's key names. */

const isTypingEvent = (e: QueueEvent) => e.type === 'typing' || e.type === 'typing_edit_message';

/** Passes events on to each of the user's queues; `extra` adds flags to messages by id (muting.ts). */
export function deliver(
  key: string,
  state: UserState,
  events: QueueEvent[],
  extra = new Map<number, string[]>(),
): Decision<UserEvent, null> {
  const queues = state.queues ?? [];
  if (queues.length === 0) return {};
  const userId = userOfKey(key);
  // Typing notifications reach only users who want them (the receives_typing_notifications setting).
  const wanted =
    state.settings?.receives_typing_notifications === false ? events.filter((e) => !isTypingEvent(e)) : events;
  if (wanted.length === 0) return {};
  const body = { type: 'queue.push' as const, events: wanted.map((e) => personalize(userId, state, e, extra)) };
  const realm = realmOfKey(key);
  return { tells: queues.map((queueId) => ({ to: queueAddress(realm, queueId), body })) };
}

/** Events the user's own changes raise, for the user's own queues. */
export function toOwnQueues(key: string, state: UserState, events: QueueEvent[]): Decision<UserEvent>['tells'] {
  const realm = realmOfKey(key);
  return (state.queues ?? []).map((queueId) => ({
    to: queueAddress(realm, queueId),
    body: { type: 'queue.push', events },
  }));
}

// The events a UserActor raises for its own user's queues, in the reference's shapes.

/** `message_details` only for messages marked unread, so clients can rebuild their unread counts. */
export function flagsEvent(cmd: Extract<UserCommand, { type: 'user.flags' }>, changed: FlagTarget[]): QueueEvent {
  const messages = changed.map((m) => m.id).sort((a, b) => a - b);
  const event = flagsUpdated(cmd.op, cmd.flag, messages);
  if (cmd.op === 'remove' && cmd.flag === 'read' && cmd.details) {
    event.message_details = Object.fromEntries(messages.map((id) => [id, cmd.details![id]]).filter(([, d]) => d));
  }
  return event;
}

/** The original sends `in_home_view` (the inverse of `is_muted`) alongside `is_muted` for older clients. */
export function subscriptionUpdates(streamId: number, property: string, value: unknown): QueueEvent[] {
  return property === 'is_muted'
    ? [subscriptionUpdated(streamId, 'is_muted', value), subscriptionUpdated(streamId, 'in_home_view', !value)]
    : [subscriptionUpdated(streamId, property, value)];
}
