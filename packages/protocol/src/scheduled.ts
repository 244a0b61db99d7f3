import type { ChannelCommand } from './channel.js';
import type { ProtocolOf } from './contract.js';

/**
 * Scheduled messages and reminders: kept by their author's UserActor and
 * sent by its timer when due. The edge checks and renders a message when it
 * is scheduled; the actor keeps the send command it built.
 */

/** What the author asked for, kept so that an edit can change one field and check the whole again. */
export interface ScheduledRequest {
  type: 'stream' | 'private';
  /** A channel id, or the user ids of a direct message. */
  to: number | number[];
  topic?: string;
  content: string;
  read_by_sender?: boolean;
}

export interface ScheduledInput {
  kind: 'message' | 'reminder';
  request: ScheduledRequest;
  rendered_content: string;
  /** Seconds. */
  scheduled_delivery_timestamp: number;
  /** The message a reminder is about. */
  target_message_id?: number;
  /** What is sent when due: the conversation's actor key and its command. */
  send: { key: string; command: Extract<ChannelCommand, { type: 'message.send' }> };
}

export interface StoredScheduled extends ScheduledInput {
  id: number;
  failed: boolean;
}

export type ScheduledCommand =
  /** Replies `{id}`. */
  | { type: 'user.schedule'; item: ScheduledInput }
  /** Replaces a scheduled message of this kind; refused when there is none. */
  | { type: 'user.editScheduled'; id: number; item: ScheduledInput }
  | { type: 'user.unschedule'; kind: 'message' | 'reminder'; id: number }
  /** All of this kind, as the reference's objects. */
  | { type: 'user.scheduled'; kind: 'message' | 'reminder' }
  /** One of them as kept (RESOURCE_NOT_FOUND when missing). */
  | { type: 'user.scheduledItem'; kind: 'message' | 'reminder'; id: number };

export type ScheduledReplies = {
  'user.schedule': { id: number };
  'user.editScheduled': null;
  'user.unschedule': null;
  'user.scheduled': Array<Record<string, unknown>>;
  'user.scheduledItem': StoredScheduled;
};

export type ScheduledProtocol = ProtocolOf<ScheduledCommand, ScheduledReplies>;
