/** Client events about messages beyond `message` itself, in the reference's shapes (`GET /events`). */
import type { EditFlagFacts, EditPropagation } from '../channel.js';

/**
 * `update_message`: a content edit, a topic or channel move, or both. The
 * channel actor sets `personal`, from which each recipient's UserActor
 * fills in `flags` and which it strips before a queue holds the event.
 */
export type UpdateMessageEvent = {
  type: 'update_message';
  user_id: number | null;
  edit_timestamp: number;
  message_id: number;
  message_ids: number[];
  flags: string[];
  rendering_only: boolean;
  stream_id?: number;
  stream_name?: string;
  new_stream_id?: number;
  propagate_mode?: EditPropagation;
  orig_subject?: string;
  subject?: string;
  topic_links?: Array<{ text: string; url: string }>;
  orig_content?: string;
  orig_rendered_content?: string;
  content?: string;
  rendered_content?: string;
  is_me_message?: boolean;
  personal?: EditFlagFacts;
};
export const updateMessageEvent = (fields: Omit<UpdateMessageEvent, 'type'>): UpdateMessageEvent => ({
  type: 'update_message',
  ...fields,
});

type Typist = { user_id: number; email: string };
export type TypingEvent =
  | { type: 'typing'; op: 'start' | 'stop'; message_type: 'direct'; sender: Typist; recipients: Typist[] }
  | { type: 'typing'; op: 'start' | 'stop'; message_type: 'stream'; sender: Typist; stream_id: number; topic: string };
export const typingDirect = (op: 'start' | 'stop', sender: Typist, recipients: Typist[]): TypingEvent => ({
  type: 'typing',
  op,
  message_type: 'direct',
  sender,
  recipients,
});
export const typingInChannel = (
  op: 'start' | 'stop',
  sender: Typist,
  stream_id: number,
  topic: string,
): TypingEvent => ({
  type: 'typing',
  op,
  message_type: 'stream',
  sender,
  stream_id,
  topic,
});

export type TypingEditRecipient =
  { type: 'channel'; channel_id: number; topic: string } | { type: 'direct'; user_ids: number[] };
export type TypingEditMessageEvent = {
  type: 'typing_edit_message';
  op: 'start' | 'stop';
  sender_id: number;
  message_id: number;
  recipient: TypingEditRecipient;
};
export const typingEditMessage = (
  op: 'start' | 'stop',
  sender_id: number,
  message_id: number,
  recipient: TypingEditRecipient,
): TypingEditMessageEvent => ({ type: 'typing_edit_message', op, sender_id, message_id, recipient });

export type MessageExtraEvent = UpdateMessageEvent | TypingEvent | TypingEditMessageEvent;
