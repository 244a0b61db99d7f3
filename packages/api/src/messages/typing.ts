import { Type } from '@sinclair/typebox';
import { defineRoute, type Route } from '@chat/edge';
import {
  ChatError,
  type QueueEvent,
  type TypingEditRecipient,
  typingDirect,
  typingEditMessage,
  typingInChannel,
  userKeys,
} from '@chat/protocol';
import { CallerContext } from '../context.js';
import { getMessages, type Located } from './fetch.js';
import { normalizeTopic } from '../limits.js';
import type { ApiOptions } from '../options.js';

/**
 * The original skips channel typing notifications in channels this large:
 * the fan-out is not worth it there.
 */
const MAX_CHANNEL_SIZE_FOR_TYPING = 100;

const bad = (msg: string) => new ChatError('BAD_REQUEST', msg);

interface TypingParams {
  type: 'direct' | 'stream' | 'channel';
  op: 'start' | 'stop';
  to?: number[];
  stream_id?: number;
  topic?: string;
}

/** Who hears the notification (everyone in the conversation, the typist included) and the event they get. */
async function notification(caller: CallerContext, params: TypingParams): Promise<[number[], QueueEvent]> {
  const me = caller.principal;
  const sender = { user_id: me.user_id, email: me.api_email ?? me.email };
  const settings = await caller.actors.ask(caller.me, { type: 'user.settings' });
  if (params.type === 'direct') {
    if (params.to === undefined) throw bad("Missing 'to' argument");
    if (params.to.length === 0) throw bad("Empty 'to' list");
    if (!settings.send_private_typing_notifications) {
      throw bad('User has disabled typing notifications for direct messages');
    }
    const ids = [...new Set([...params.to, me.user_id])];
    const users = await caller.users(ids);
    const unknown = ids.find((id) => !users.has(id));
    if (unknown !== undefined) throw bad(`Invalid user ID ${unknown}`);
    // The typist is among the recipients, as the reference guarantees.
    const recipients = ids.map((id) => ({ user_id: id, email: users.get(id)!.email }));
    const event = typingDirect(params.op, sender, recipients);
    // The typist's own other clients hear it too, as in the original.
    const audience = ids.filter((id) => users.get(id)!.is_active);
    return [audience, event];
  }
  if (params.stream_id === undefined) throw bad('Missing channel ID');
  if (params.topic === undefined) throw bad('Missing topic');
  if (!settings.send_stream_typing_notifications) {
    throw bad('User has disabled typing notifications for channel messages');
  }
  const info = await caller.channelInfo(params.stream_id);
  const topic = normalizeTopic(params.topic, await caller.settings());
  const event = typingInChannel(params.op, sender, info.stream_id, topic);
  if (info.subscribers.length > MAX_CHANNEL_SIZE_FOR_TYPING) return [[], event];
  return [info.subscribers, event];
}

/** Who hears that the caller edits a message (whoever would see the edit saved) and the event they get. */
async function editNotification(caller: CallerContext, messageId: number, op: 'start' | 'stop') {
  const [{ message }] = (await getMessages(caller, [messageId])) as [Located];
  const settings = await caller.actors.ask(caller.me, { type: 'user.settings' });
  const event = (recipient: TypingEditRecipient) =>
    typingEditMessage(op, caller.principal.user_id, messageId, recipient);
  if (message.channel_id === null) {
    if (!settings.send_private_typing_notifications) {
      throw bad('User has disabled typing notifications for direct messages');
    }
    return { audience: message.dm_user_ids, event: event({ type: 'direct', user_ids: message.dm_user_ids }) };
  }
  if (!settings.send_stream_typing_notifications) {
    throw bad('User has disabled typing notifications for channel messages');
  }
  const info = await caller.channelInfo(message.channel_id);
  const audience = info.subscribers.length > MAX_CHANNEL_SIZE_FOR_TYPING ? [] : info.subscribers;
  return { audience, event: event({ type: 'channel', channel_id: message.channel_id, topic: message.topic }) };
}

export function typingRoutes(_options: ApiOptions): Route[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/typing',
      auth: 'required',
      params: Type.Object({
        type: Type.Optional(
          Type.Union([Type.Literal('direct'), Type.Literal('stream'), Type.Literal('channel')], { default: 'direct' }),
        ),
        op: Type.Union([Type.Literal('start'), Type.Literal('stop')]),
        to: Type.Optional(Type.Array(Type.Integer(), { description: 'Recipients of a direct message.' })),
        stream_id: Type.Optional(Type.Integer({ description: 'The channel of a channel message.' })),
        topic: Type.Optional(Type.String({ description: 'The topic of a channel message.' })),
      }),
      summary: 'Set "typing" status',
      description: 'Tells the recipients of the message being composed that the caller started or stopped typing.',
      tags: ['users'],
      response: Type.Object({}),
      async handler({ params, principal, actors }) {
        const caller = new CallerContext(actors, principal);
        const [audience, event] = await notification(caller, params as TypingParams);
        // Each recipient's UserActor drops it if they turned typing notifications off.
        const keys = userKeys(principal.realm, audience);
        if (keys.length > 0) actors.fanout('user', keys, { type: 'user.deliver', events: [event] });
        return {};
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/messages/{message_id}/typing',
      auth: 'required',
      params: Type.Object({
        message_id: Type.Integer(),
        op: Type.Union([Type.Literal('start'), Type.Literal('stop')]),
      }),
      summary: 'Set "typing" status for message editing',
      description: 'Tells whoever would see the edit that the caller started or stopped editing a message.',
      tags: ['users'],
      response: Type.Object({}),
      async handler({ params, principal, actors }) {
        const caller = new CallerContext(actors, principal);
        const { audience, event } = await editNotification(caller, params.message_id, params.op);
        const keys = userKeys(principal.realm, audience);
        if (keys.length > 0) actors.fanout('user', keys, { type: 'user.deliver', events: [event] });
        return {};
      },
    }),
  ];
}
