import { htmlToText } from '@chat/markdown';
import { matches, narrowMessage, type ResolvedTerm } from '@chat/narrow';
import { isMessageEvent, type QueueEvent } from '@chat/protocol';
import type { Cover, Origin, QueueState } from './state.js';
import { capabilityAllows } from './capabilities.js';

/**
 * Whether a queue keeps an event: its type was asked for, and a message
 * matches the queue's narrow. Only message events are narrowed, as in the
 * original: a narrowed client still hears about edits and deletions.
 */
export function wants(state: QueueState, event: QueueEvent): boolean {
  const spec = state.spec!;
  if (event.type === 'heartbeat') return true;
  if (spec.event_types && !spec.event_types.includes(event.type)) return false;
  if (!capabilityAllows(spec, event)) return false;
  if (!isMessageEvent(event)) return true;
  if (spec.narrow.length === 0) return true;
  const terms = spec.narrow as ResolvedTerm[];
  const searching = terms.some((t) => t.operator === 'search');
  const channel = { is_public: event.channel_is_public, is_web_public: event.channel_is_web_public };
  const text = searching ? htmlToText(event.message.rendered) : '';
  return matches(narrowMessage(event.message, channel, text), terms, spec.user_id);
}

/**
 * Whether the client's snapshot already holds an event: the snapshot built
 * the event type's section and read the actor the event comes from at or
 * after the change. A move to another channel changes two conversations,
 * read at different moments, so it never counts as seen.
 */
export function inSnapshot(cover: Cover | undefined, origin: Origin | undefined, event: QueueEvent): boolean {
  if (!cover || !origin) return false;
  if (event.type === 'update_message' && 'new_stream_id' in event) return false;
  return (cover[event.type]?.[origin.actor] ?? -1) >= origin.position;
}

/** `local_id` goes back only to the queue that sent the message. */
export function forQueue(queueId: string, event: QueueEvent): QueueEvent {
  if (!isMessageEvent(event) || !event.local) return event;
  const { local, ...rest } = event;
  return local.queue_id === queueId ? { ...rest, local } : rest;
}
