import { Type } from '@sinclair/typebox';
import { defineRoute, type Route } from '@chat/edge';
import {
  ChatError,
  channelAddress,
  conversationAddress,
  type ChannelCommand,
  type Principal,
  type RealmSettings,
  type UserRef,
} from '@chat/protocol';
import { prepareContent } from './content.js';
import { checkDirectMessage } from './direct-permission.js';
import { asked, CallerContext } from '../context.js';
import { checkContent, normalizeTopic } from '../limits.js';
import { claimUploads } from '../uploads/uploads.js';
import { checkMayAccessAll } from '../users/access.js';
import { directAccessAdds } from '../users/access-events.js';
import type { ApiOptions } from '../options.js';
import { triggerOutgoingWebhooks } from '../bots/outgoing.js';

const To = Type.Union([Type.Integer(), Type.String(), Type.Array(Type.Integer()), Type.Array(Type.String())], {
  description: 'A channel name or id, or the user ids or e-mail addresses of a direct message.',
});

/** The channel id a message goes to; an unknown id is refused by the ChannelActor itself. */
async function channelIdOf(caller: CallerContext, to: number | string | number[] | string[]): Promise<number> {
  const target = Array.isArray(to) ? (to.length === 1 ? to[0]! : undefined) : to;
  if (target === undefined) {
    throw new ChatError('BAD_REQUEST', 'Invalid recipient: a channel message needs one channel');
  }
  return typeof target === 'string' ? (await caller.channelByName(target)).channel_id : target;
}

/** The participants of a direct message, the sender included; refuses unknown and deactivated users. */
async function participantsOf(caller: CallerContext, to: number | string | number[] | string[]): Promise<UserRef[]> {
  const list = Array.isArray(to) ? to : typeof to === 'string' ? to.split(',').map((s) => s.trim()) : [to];
  if (list.length === 0) throw new ChatError('BAD_REQUEST', 'Message must have recipients');
  const ids = list.filter((x): x is number => typeof x === 'number');
  const emails = list.filter((x): x is string => typeof x === 'string');
  const { users } = await caller.resolve({ user_ids: ids, emails });
  for (const id of ids) {
    if (!users.some((u) => u.user_id === id)) throw new ChatError('BAD_REQUEST', `Invalid user ID ${id}`);
  }
  for (const email of emails) {
    if (!users.some((u) => u.email.toLowerCase() === email.toLowerCase())) {
      throw new ChatError('BAD_REQUEST', `Invalid email '${email}'`);
    }
  }
  const gone = users.find((u) => !u.is_active);
  if (gone) throw new ChatError('BAD_REQUEST', `'${gone.email}' is no longer using Zulip.`);
  return users;
}

const asRef = (p: Principal): UserRef => ({
  user_id: p.user_id,
  // What others see: the placeholder while the sender hides the real address.
  email: p.api_email ?? p.email,
  ...(p.gravatar_url !== undefined && { gravatar_url: p.gravatar_url }),
  full_name: p.full_name,
  role: p.role,
  is_bot: p.is_bot,
  is_active: true,
  bot_owner_id: null,
});

export interface SendRequest {
  type: string;
  to: number | string | number[] | string[];
  content: string;
  topic?: string;
  read_by_sender?: boolean;
  /** The sender's event queue, which gets `local_id` back in the message event. */
  queue_id?: string;
  local_id?: string;
  /** A widget given whole (JSON text), instead of the one the content may start. */
  widget_content?: string;
}

/** A message ready to go: the conversation's actor, the command it takes, and what the sender's actor is told after. */
export interface PreparedSend {
  address: { type: 'channel'; key: string };
  command: Extract<ChannelCommand, { type: 'message.send' }>;
  channel_id?: number;
  topic: string;
  read: boolean;
}

/** Checks a message and builds its send command, without sending it (scheduled messages keep it for later). */
export async function prepareSend(
  caller: CallerContext,
  req: SendRequest,
  options: ApiOptions,
  client: string,
  internal = false,
  markRead: number[] = [],
): Promise<PreparedSend> {
  const sender: Principal = caller.principal;
  const content = checkContent(req.content);
  const direct = req.type === 'direct' || req.type === 'private';
  // The realm's answers a message needs (its settings, the channel named, what the content mentions) are
  // asked at once, not one after another; each is awaited where a check needs it, in the order the checks
  // run, so a refusal is the one the first failing check gives.
  const settingsAsked = asked(caller.settings());
  const channelAsked = direct ? undefined : asked(channelIdOf(caller, req.to));
  const contentAsked = asked(prepareContent(caller, content));
  const settings: RealmSettings = await settingsAsked;
  let address;
  let topic = '';
  let channelId: number | undefined;
  const people = [asRef(sender)];
  if (direct) {
    const others = (await participantsOf(caller, req.to)).filter((u) => u.user_id !== sender.user_id);
    people.push(...others);
    await checkMayAccessAll(caller, others);
    address = conversationAddress(sender.realm, [sender.user_id, ...others.map((u) => u.user_id)]);
    await checkDirectMessage(caller, sender, others, settings, address.key);
  } else {
    channelId = await channelAsked!;
    if (req.topic === undefined) throw new ChatError('BAD_REQUEST', 'Missing topic');
    topic = normalizeTopic(req.topic, settings);
    address = channelAddress(sender.realm, channelId);
  }
  const prepared = await contentAsked;
  const read = req.read_by_sender ?? !sender.is_bot;
  // A retry with the same queue and local id is the same message.
  const local =
    req.queue_id !== undefined && req.local_id !== undefined
      ? { queue_id: req.queue_id, local_id: req.local_id }
      : undefined;
  const command: PreparedSend['command'] = {
    type: 'message.send',
    sender,
    topic,
    prepared,
    settings,
    wildcard_threshold: options.wildcardThreshold,
    client,
    people,
    read_by_sender: read,
    ...(local ? { local } : {}),
    ...(internal ? { internal } : {}),
    ...(markRead.length > 0 ? { mark_read: markRead } : {}),
    ...(req.widget_content !== undefined ? { widget_content: req.widget_content } : {}),
  };
  return {
    address: { type: 'channel', key: address.key },
    command,
    topic,
    read,
    ...(channelId !== undefined ? { channel_id: channelId } : {}),
  };
}

/**
 * Sends one message as `sender`; shared by the API and the automated notices (`internal`: the notification bot's;
 * `markRead`: recipients who get it already read, the original's `mark_as_read`).
 */
export async function sendMessage(
  caller: CallerContext,
  req: SendRequest,
  options: ApiOptions,
  client: string,
  internal = false,
  markRead: number[] = [],
) {
  const {
    address,
    command,
    channel_id: channelId,
    topic,
    read,
  } = await prepareSend(caller, req, options, client, internal, markRead);
  const sender = command.sender;
  const local = command.local;
  // A restricted guest among a direct message's people hears first of those he may not access (their adds).
  const access =
    channelId === undefined
      ? await directAccessAdds(caller.actors, sender.realm, command.people, sender.user_id)
      : undefined;
  const sent = await caller.actors.ask(
    address,
    access ? { ...command, access } : command,
    local ? { idempotencyKey: `send:${sender.user_id}:${local.queue_id}:${local.local_id}` } : {},
  );
  const after = await caller.actors.ask(caller.me, {
    type: 'user.sent',
    key: address.key,
    message_id: sent.id,
    read,
    // Bots never follow topics automatically.
    ...(channelId !== undefined && !sender.is_bot
      ? { topic: { channel_id: channelId, topic, new_topic: sent.new_topic } }
      : {}),
  });
  // Asked, not told: once the send answers, readers of the message can open its uploads.
  await claimUploads(caller, {
    message_id: sent.id,
    key: address.key,
    date_sent: Date.now(),
    paths: command.prepared.upload_paths,
  });
  return { id: sent.id, ...after, sent: { command, direct: channelId === undefined } };
}

export function sendRoutes(options: ApiOptions): Route[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/messages',
      auth: 'required',
      params: Type.Object({
        type: Type.Union([
          Type.Literal('direct'),
          Type.Literal('channel'),
          Type.Literal('stream'),
          Type.Literal('private'),
        ]),
        to: To,
        content: Type.String({ description: 'The Markdown content of the message.' }),
        topic: Type.Optional(Type.String({ description: 'The topic of a channel message.' })),
        queue_id: Type.Optional(Type.String()),
        local_id: Type.Optional(Type.String()),
        read_by_sender: Type.Optional(Type.Boolean()),
        widget_content: Type.Optional(
          Type.String({ description: 'A widget for the message, as JSON: a zform of `choices` (used by bots).' }),
        ),
      }),
      aliases: { topic: ['subject'] },
      summary: 'Send a message',
      description: 'Sends a channel message or a direct message.',
      tags: ['messages'],
      response: Type.Object({ id: Type.Integer(), automatic_new_visibility_policy: Type.Optional(Type.Integer()) }),
      async handler({ params, principal, actors, request, log }) {
        const caller = new CallerContext(actors, principal);
        const { sent, ...answer } = await sendMessage(caller, params, options, clientName(request.userAgent));
        const trigger = {
          message_id: answer.id,
          sender: principal,
          mentioned_user_ids: sent.command.prepared.mentioned_user_ids,
          // Only bots can have outgoing webhooks: a direct message with none asks the realm nothing.
          dm_user_ids: sent.direct ? sent.command.people.filter((p) => p.is_bot).map((p) => p.user_id) : null,
        };
        triggerOutgoingWebhooks(caller, trigger, options, log).catch((err: unknown) =>
          log.warn({ err }, 'outgoing webhooks not called'),
        );
        return answer;
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/messages/render',
      auth: 'required',
      params: Type.Object({ content: Type.String({ description: 'The Markdown to render.' }) }),
      summary: 'Render a message',
      description: 'Renders Markdown the way a sent message would be rendered.',
      tags: ['messages'],
      response: Type.Object({ rendered: Type.String() }),
      async handler({ params, principal, actors }) {
        const prepared = await prepareContent(new CallerContext(actors, principal), checkContent(params.content));
        return { rendered: prepared.rendered };
      },
    }),
  ];
}

/** The original names the client by its User-Agent's first word (e.g. "ZulipMobile"). */
export function clientName(userAgent: string | undefined): string {
  const first = userAgent?.split(/[\s/]/)[0] ?? '';
  return first === '' ? 'API' : first.slice(0, 30);
}
