import type { ViewedMessage } from '@chat/protocol';
import type { NarrowMessage } from './types.js';

/**
 * A viewed message as the engine sees it. `text` is the plain text of the
 * rendered HTML, needed only by search: callers that do not search pass ''.
 */
export function narrowMessage(
  m: ViewedMessage,
  channel: { is_public: boolean; is_web_public: boolean },
  text: string,
): NarrowMessage {
  return {
    id: m.id,
    sender_id: m.sender_id,
    channel_id: m.channel_id,
    channel_is_public: channel.is_public,
    channel_is_web_public: channel.is_web_public,
    topic: m.topic,
    dm_user_ids: m.dm_user_ids,
    content: m.content,
    text,
    rendered: m.rendered,
    flags: m.flags,
    has: { link: m.has_link, attachment: m.has_attachment, image: m.has_image, reaction: m.reactions.length > 0 },
  };
}
