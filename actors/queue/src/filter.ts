import { htmlToText } from '@chat/markdown';
import { matches, type NarrowMessage, type ResolvedTerm } from '@chat/narrow';
import {
  channelAddress,
  conversationAddress,
  isMessageEvent,
  type MessageQueueEvent,
  type QueueEvent,
} from '@chat/protocol';
import type { QueueState } from './state.js';

function narrowMessage(event: MessageQueueEvent, searching: boolean): NarrowMessage {
  const m = event.message;
  return {
    id: m.id,
    sender_id: m.sender_id,
    channel_id: m.channel_id,
    channel_is_public: event.channel_is_public,
    channel_is_web_public: event.channel_is_web_public,
    topic: m.topic,
    dm_user_ids: m.dm_user_ids,
    content: m.content,
    text: searching ? htmlToText(m.rendered) : '',
    rendered: m.rendered,
    flags: m.flags,
    has: { link: m.has_link, attachment: m.has_attachment, image: m.has_image, reaction: m.reactions.length > 0 },
  };
}

/**
 * Whether a queue keeps an event: its type was asked for, and a message
 * matches the queue's narrow. Only message events are narrowed, as in the
 * original: a narrowed client still hears about edits and deletions.
 */
export function wants(state: QueueState, realm: string, event: QueueEvent): boolean {
  const spec = state.spec!;
  if (event.type === 'heartbeat') return true;
  if (spec.event_types && !spec.event_types.includes(event.type)) return false;
  if (!isMessageEvent(event)) return true;
  if (state.covered && event.message.id <= (state.covered[conversationKey(realm, event)] ?? 0)) return false;
  if (spec.narrow.length === 0) return true;
  const terms = spec.narrow as ResolvedTerm[];
  const searching = terms.some((t) => t.operator === 'search');
  return matches(narrowMessage(event, searching), terms, spec.user_id);
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
