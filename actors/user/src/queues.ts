import { isMessageEvent, queueAddress, realmOfKey, type QueueEvent } from '@chat/protocol';
import type { Decision } from '@chat/runtime';
import type { UserEvent, UserState } from './state.js';

/** A message event's flags for one recipient, as the original gives them at send time. */
function flagsOf(userId: number, event: Extract<QueueEvent, { type: 'message' }>): string[] {
  const m = event.message;
  const own = m.sender_id === userId;
  const flags: string[] = [];
  if (own && event.read_by_sender !== false) flags.push('read');
  if (m.mentioned_user_ids.includes(userId) || m.group_member_ids.includes(userId)) flags.push('mentioned');
  if (!own && m.channel_id !== null) {
    const topicWildcard = m.topic_wildcard && (event.topic_participants ?? []).includes(userId);
    if (m.channel_wildcard) flags.push('stream_wildcard_mentioned');
    if (topicWildcard) flags.push('topic_wildcard_mentioned');
    if (m.channel_wildcard || topicWildcard) flags.push('wildcard_mentioned');
  }
  return flags;
}

function personalize(userId: number, event: QueueEvent): QueueEvent {
  if (!isMessageEvent(event)) return event;
  return { ...event, message: { ...event.message, flags: flagsOf(userId, event) } };
}

/** Passes events on to each of the user's queues. */
export function deliver(key: string, state: UserState, events: QueueEvent[]): Decision<UserEvent> {
  const queues = state.queues ?? [];
  if (queues.length === 0) return {};
  const userId = Number(key.slice(key.indexOf(':') + 1));
  const body = { type: 'queue.push', events: events.map((e) => personalize(userId, e)) };
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
