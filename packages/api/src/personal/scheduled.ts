import { Type } from '@sinclair/typebox';
import { defineRoute, type Route } from '@chat/edge';
import { ChatError, conversationOfKey, type ScheduledInput, type ScheduledRequest } from '@chat/protocol';
import { CallerContext } from '../context.js';
import { getMessages, type Located } from '../messages/fetch.js';
import { clientName, prepareSend, type PreparedSend } from '../messages/send.js';
import type { ApiOptions } from '../options.js';

/** The original's limit on a reminder's note (`max_reminder_note_length` in the register snapshot). */
const MAX_NOTE_LENGTH = 1000;

const bad = (msg: string) => new ChatError('BAD_REQUEST', msg);

// Names and addresses are parsed too, to be refused as the original refuses them (`checkTo`).
const To = Type.Union([Type.Integer(), Type.String(), Type.Array(Type.Integer()), Type.Array(Type.String())], {
  description: 'A channel id, or the user ids of a direct message.',
});
const MessageType = Type.Union(['direct', 'channel', 'stream', 'private'].map((t) => Type.Literal(t)));

/**
 * The original's recipient_parsing: a scheduled channel message goes to one channel id, a scheduled direct
 * message to a list of user ids (no names, no addresses, unlike POST /messages).
 */
function checkTo(type: string, to: unknown): void {
  if (type === 'stream' || type === 'channel') {
    if (typeof to !== 'number') throw bad('Invalid data type for channel ID');
    return;
  }
  if (!Array.isArray(to)) throw bad('Invalid data type for recipients');
  if (to.some((id) => typeof id !== 'number')) throw bad('Recipient list may only contain user IDs');
}

function future(timestamp: number): number {
  if (timestamp * 1000 <= Date.now()) throw bad('Scheduled delivery time must be in the future.');
  return timestamp;
}

/** The request as kept: a channel id, or the other participants' ids (oneself alone for a note to self). */
function keptRequest(caller: CallerContext, ready: PreparedSend, content: string, read?: boolean): ScheduledRequest {
  const me = caller.principal.user_id;
  const readBySender = read === undefined ? {} : { read_by_sender: read };
  if (ready.channel_id !== undefined) {
    return { type: 'stream', to: ready.channel_id, topic: ready.topic, content, ...readBySender };
  }
  const others = ready.command.people.map((p) => p.user_id).filter((id) => id !== me);
  return { type: 'private', to: others.length > 0 ? others : [me], content, ...readBySender };
}

async function scheduledMessage(
  caller: CallerContext,
  options: ApiOptions,
  client: string,
  req: {
    type: string;
    to: ScheduledRequest['to'] | string | string[];
    content: string;
    topic?: string;
    read_by_sender?: boolean;
  },
  timestamp: number,
): Promise<ScheduledInput> {
  const ready = await prepareSend(caller, req, options, client);
  // What the conversation would refuse when the message is sent (an unknown or archived channel, one the
  // sender may not post in, a wildcard mention), the original refuses now (check_schedule_message).
  await caller.actors.ask(conversationOfKey(ready.address.key), { type: 'message.checkSend', send: ready.command });
  return {
    kind: 'message',
    request: keptRequest(caller, ready, req.content, req.read_by_sender),
    rendered_content: ready.command.prepared.rendered,
    scheduled_delivery_timestamp: timestamp,
    send: { key: ready.address.key, command: ready.command },
  };
}

/** The notification bot's message that reminds the caller of a message, quoting it. */
function reminderContent(message: Located['message'], sender: string, note: string): string {
  const link =
    message.channel_id !== null
      ? `#**${message.channel_name}>${message.topic}@${message.id}**`
      : 'the following direct message';
  const intro =
    message.channel_id !== null ? `You requested a reminder for ${link}.` : `You requested a reminder for ${link}.`;
  const withNote = note === '' ? intro : `${intro} Note:\n> ${note.replace(/\n/g, '\n> ')}`;
  return `${withNote}\n\n@_**${sender}|${message.sender_id}** said:\n\`\`\`quote\n${message.content}\n\`\`\``;
}

export function scheduledRoutes(options: ApiOptions): Route[] {
  const list = (kind: 'message' | 'reminder', path: string, field: string) =>
    defineRoute({
      method: 'GET',
      path,
      auth: 'required',
      params: Type.Object({}),
      summary: kind === 'message' ? 'Get scheduled messages' : 'Get reminders',
      description: `The caller's ${kind === 'message' ? 'scheduled messages' : 'reminders'}, the next one first.`,
      tags: ['scheduled_messages'],
      async handler({ principal, actors }) {
        const caller = new CallerContext(actors, principal);
        return { [field]: await actors.ask(caller.me, { type: 'user.scheduled', kind }) };
      },
    });
  const remove = (kind: 'message' | 'reminder', path: string, idName: 'scheduled_message_id' | 'reminder_id') =>
    defineRoute({
      method: 'DELETE',
      path,
      auth: 'required',
      params: Type.Object({ [idName]: Type.Integer() }),
      summary: kind === 'message' ? 'Delete a scheduled message' : 'Delete a reminder',
      description: 'It will not be sent.',
      tags: ['scheduled_messages'],
      async handler({ params, principal, actors }) {
        const caller = new CallerContext(actors, principal);
        const id = (params as Record<string, number>)[idName]!;
        await actors.ask(caller.me, { type: 'user.unschedule', kind, id });
        return {};
      },
    });
  return [
    list('message', '/scheduled_messages', 'scheduled_messages'),
    defineRoute({
      method: 'POST',
      path: '/scheduled_messages',
      auth: 'required',
      params: Type.Object({
        type: MessageType,
        to: To,
        content: Type.String(),
        topic: Type.Optional(Type.String()),
        scheduled_delivery_timestamp: Type.Integer(),
        read_by_sender: Type.Optional(Type.Boolean()),
      }),
      summary: 'Create a scheduled message',
      description: 'Checks a message now and sends it at the given time.',
      tags: ['scheduled_messages'],
      response: Type.Object({ scheduled_message_id: Type.Integer() }),
      async handler({ params, principal, actors, request }) {
        const caller = new CallerContext(actors, principal);
        const at = future(params.scheduled_delivery_timestamp);
        checkTo(params.type, params.to);
        const item = await scheduledMessage(caller, options, clientName(request.userAgent), params, at);
        const { id } = await actors.ask(caller.me, { type: 'user.schedule', item });
        return { scheduled_message_id: id };
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/scheduled_messages/{scheduled_message_id}',
      auth: 'required',
      params: Type.Object({
        scheduled_message_id: Type.Integer(),
        type: Type.Optional(MessageType),
        to: Type.Optional(To),
        content: Type.Optional(Type.String()),
        topic: Type.Optional(Type.String()),
        scheduled_delivery_timestamp: Type.Optional(Type.Integer()),
      }),
      summary: 'Edit a scheduled message',
      description: 'Changes what, where or when; the whole is checked again.',
      tags: ['scheduled_messages'],
      async handler({ params, principal, actors, request }) {
        const caller = new CallerContext(actors, principal);
        const id = params.scheduled_message_id;
        const old = await actors.ask(caller.me, { type: 'user.scheduledItem', kind: 'message', id });
        if (params.type !== undefined && params.to === undefined) {
          throw bad('Recipient required when updating type of scheduled message.');
        }
        const type = params.type ?? old.request.type;
        const channel = type === 'stream' || type === 'channel';
        if (params.type !== undefined && channel && old.request.type !== 'stream' && params.topic === undefined) {
          throw bad('Topic required when updating scheduled message type to channel.');
        }
        // A message that already failed to go needs a new time; so does one whose time has passed.
        const at = future(params.scheduled_delivery_timestamp ?? old.scheduled_delivery_timestamp);
        if (params.to !== undefined) checkTo(type, params.to);
        const req = {
          type,
          to: params.to ?? old.request.to,
          content: params.content ?? old.request.content,
          topic: params.topic ?? old.request.topic,
          ...(old.request.read_by_sender !== undefined ? { read_by_sender: old.request.read_by_sender } : {}),
        };
        const item = await scheduledMessage(caller, options, clientName(request.userAgent), req, at);
        await actors.ask(caller.me, { type: 'user.editScheduled', id, item });
        return {};
      },
    }),
    remove('message', '/scheduled_messages/{scheduled_message_id}', 'scheduled_message_id'),
    list('reminder', '/reminders', 'reminders'),
    defineRoute({
      method: 'POST',
      path: '/reminders',
      auth: 'required',
      params: Type.Object({
        message_id: Type.Integer(),
        scheduled_delivery_timestamp: Type.Integer(),
        note: Type.Optional(Type.String({ maxLength: MAX_NOTE_LENGTH })),
      }),
      summary: 'Create a message reminder',
      description: 'The notification bot reminds the caller of a message at the given time.',
      tags: ['scheduled_messages'],
      response: Type.Object({ reminder_id: Type.Integer() }),
      async handler({ params, principal, actors }) {
        const caller = new CallerContext(actors, principal);
        const at = future(params.scheduled_delivery_timestamp);
        const [{ message }] = (await getMessages(caller, [params.message_id])) as [Located];
        const sender = (await caller.users([message.sender_id])).get(message.sender_id);
        const content = reminderContent(message, sender?.full_name ?? 'Unknown user', params.note?.trim() ?? '');
        const bot = await actors.ask(caller.realm, { type: 'realm.notificationBot' });
        const toMe = { type: 'private', to: [principal.user_id], content };
        const ready = await prepareSend(new CallerContext(actors, bot), toMe, options, 'Internal', true);
        const item: ScheduledInput = {
          kind: 'reminder',
          request: { type: 'private', to: [principal.user_id], content },
          rendered_content: ready.command.prepared.rendered,
          scheduled_delivery_timestamp: at,
          target_message_id: message.id,
          send: { key: ready.address.key, command: ready.command },
        };
        const { id } = await actors.ask(caller.me, { type: 'user.schedule', item });
        return { reminder_id: id };
      },
    }),
    remove('reminder', '/reminders/{reminder_id}', 'reminder_id'),
  ];
}
