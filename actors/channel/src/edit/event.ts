import {
  updateMessageEvent,
  type EditFlagFacts,
  type EditPropagation,
  type PreparedContent,
  type StoredMessage,
  type UpdateMessageEvent,
} from '@chat/protocol';
import { topicParticipants } from '../send.js';
import type { ChannelState } from '../state.js';

export interface EditFacts {
  actor_id: number;
  at: number;
  target: StoredMessage;
  prepared?: PreparedContent;
  /** The new topic, when messages moved. */
  topic?: string;
  moved: number[];
  propagate_mode: EditPropagation;
}

/**
 * One `update_message` event for a content edit, a topic move, or both, with
 * only the fields the reference gives that kind of edit. `flags` is filled in
 * per recipient from `personal`, which their UserActor strips.
 */
export function editEvent(state: ChannelState, key: string, e: EditFacts): UpdateMessageEvent {
  const { target, prepared } = e;
  const facts = prepared ?? target;
  const moved = e.topic !== undefined && e.moved.length > 0;
  const personal: EditFlagFacts = {
    key,
    sender_id: target.sender_id,
    is_channel: state.kind === 'channel',
    mentioned_user_ids: facts.mentioned_user_ids,
    group_member_ids: facts.group_member_ids,
    channel_wildcard: facts.channel_wildcard,
    topic_wildcard: facts.topic_wildcard,
    topic_participants: facts.topic_wildcard ? [...topicParticipants(state, target.topic)] : [],
  };
  const channel = state.channel;
  return updateMessageEvent({
    user_id: e.actor_id,
    edit_timestamp: e.at,
    message_id: target.id,
    message_ids: (moved ? e.moved : [target.id]).slice().sort((a, b) => a - b),
    flags: [],
    rendering_only: false,
    ...(channel ? { stream_id: channel.stream_id, stream_name: channel.name } : {}),
    ...(prepared
      ? {
          orig_content: target.content,
          orig_rendered_content: target.rendered,
          content: prepared.content,
          rendered_content: prepared.rendered,
          is_me_message: false,
        }
      : {}),
    ...(moved
      ? { orig_subject: target.topic, subject: e.topic, topic_links: [], propagate_mode: e.propagate_mode }
      : {}),
    personal,
  });
}
