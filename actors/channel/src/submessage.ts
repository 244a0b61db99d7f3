import {
  ChatError,
  SUBMESSAGES_PER_MESSAGE,
  type ChannelCommand,
  type StoredMessage,
  type Submessage,
} from '@chat/protocol';
import type { ActorContext } from '@chat/runtime';
import { canSee, invalidMessage, requireMessageAccess } from './access.js';
import { fanout, sentTo, topicActivity } from './events.js';
import { findMessage, type ChannelDecision, type ChannelState } from './state.js';
import { checkWidgetData } from './widgets/check.js';
import { widgetContent, type WidgetType } from './widgets/parse.js';

type Add = Extract<ChannelCommand, { type: 'submessage.add' }>;

/** The next submessage of a message: its id counts on from the message's own. */
function nextSubmessage(
  message: Pick<StoredMessage, 'id' | 'submessages'>,
  fields: Omit<Submessage, 'id' | 'message_id'>,
) {
  const count = message.submessages?.length ?? 0;
  if (count >= SUBMESSAGES_PER_MESSAGE - 1) throw new ChatError('BAD_REQUEST', 'Too many submessages on this message.');
  return { id: message.id * SUBMESSAGES_PER_MESSAGE + count, message_id: message.id, ...fields };
}

/**
 * The submessages a new message starts with: the widget its content asks
 * for, or the one the request gave (`widget_content`, which wins), sent by its sender.
 */
export function widgetSubmessages(
  message: Pick<StoredMessage, 'id' | 'sender_id' | 'content'>,
  given?: string,
): Submessage[] {
  const content = given ?? widgetContent(message.content);
  if (content === undefined) return [];
  return [nextSubmessage(message, { sender_id: message.sender_id, msg_type: 'widget', content })];
}

/** The type named by the message's first `widget` submessage, as the original reads it. */
function widgetType(message: StoredMessage): WidgetType | undefined {
  const widget = message.submessages?.find((s) => s.msg_type === 'widget');
  if (!widget) return undefined;
  try {
    const type = (JSON.parse(widget.content) as { widget_type?: unknown } | null)?.widget_type;
    return type === 'poll' || type === 'todo' ? type : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `POST /submessage`: anyone who can access the message may add one, once
 * its sender has added the first; a widget's submessages are checked as
 * the widget takes them. Only those the message was sent to hear of it (the
 * original's UserMessage rows): not a non-subscriber who votes, nor who
 * subscribed after it.
 */
export function decideSubmessage(ctx: ActorContext<ChannelState>, cmd: Add): ChannelDecision<'submessage.add'> {
  const state = ctx.state;
  requireMessageAccess(state, cmd.actor);
  const message = findMessage(state, cmd.message_id);
  if (!message || !canSee(state, cmd.actor, message)) throw invalidMessage();
  const isAuthor = message.sender_id === cmd.actor.user_id;
  if (!isAuthor && !message.submessages?.some((s) => s.sender_id === message.sender_id)) {
    throw new ChatError('BAD_REQUEST', 'You cannot attach a submessage to this message.');
  }
  let data: unknown;
  try {
    data = JSON.parse(cmd.content);
  } catch {
    throw new ChatError('BAD_REQUEST', 'Invalid json for submessage');
  }
  const type = widgetType(message);
  if (type) checkWidgetData(type, data, isAuthor);
  const submessage = nextSubmessage(message, {
    sender_id: cmd.actor.user_id,
    msg_type: cmd.msg_type,
    content: cmd.content,
  });
  const { id, ...rest } = submessage;
  const event = { type: 'submessage' as const, ...rest, submessage_id: id };
  return {
    events: [{ type: 'submessageAdded', submessage }],
    fanouts: [
      fanout(ctx.address.key, sentTo(state, ctx.address.key, message), [event]),
      ...topicActivity(
        state,
        ctx.address.key,
        cmd.actor.is_bot ? [] : [cmd.actor.user_id],
        message.topic,
        'participated',
      ),
    ],
    reply: null,
  };
}
