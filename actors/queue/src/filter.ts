import { htmlToText } from '@chat/markdown';
import { matches, narrowMessage, type ResolvedTerm } from '@chat/narrow';
import {
  channelAddress,
  conversationAddress,
  isMessageEvent,
  type MessageQueueEvent,
  type QueueEvent,
} from '@chat/protocol';
import type { QueueState } from './state.js';
import { capabilityAllows } from './capabilities.js';

/**
 * Whether a queue keeps an event: its type was asked for, and a message
 * matches the queue's narrow. Only message events are narrowed, as in the
 * original: a narrowed client still hears about edits and deletions.
 */
export function wants(state: QueueState, realm: string, event: QueueEvent): boolean {
  const spec = state.spec!;
  if (event.type === 'heartbeat') return true;
  if (spec.event_types && !spec.event_types.includes(event.type)) return false;
  if (!capabilityAllows(spec, event)) return false;
  if (!isMessageEvent(event)) return true;
  if (state.covered && event.message.id <= (state.covered[conversationKey(realm, event)] ?? 0)) return false;
  if (spec.narrow.length === 0) return true;
  const terms = spec.narrow as ResolvedTerm[];
  const searching = terms.some((t) => t.operator === 'search');
  const channel = { is_public: event.channel_is_public, is_web_public: event.channel_is_web_public };
  const text = searching ? htmlToText(event.message.rendered) : '';
  return matches(narrowMessage(event.message, channel, text), terms, spec.user_id);
}

/** The conversation actor's key of a message event. */
function conversationKey(realm: string, event: MessageQueueEvent): string {
  const m = event.message;
  return m.channel_id !== null
    ? channelAddress(realm, m.channel_id).key
    : conversationAddress(realm, m.dm_user_ids).key;
}

/** `local_id` goes back only to the queue that sent the message. */
export function forQueue(queueId: string, event: QueueEvent): QueueEvent {
  if (!isMessageEvent(event) || !event.local) return event;
  const { local, ...rest } = event;
  return local.queue_id === queueId ? { ...rest, local } : rest;
}
