import { Type } from '@sinclair/typebox';
import { defineRoute, type Route } from '@chat/edge';
import { checkEmoji, customEmoji, emojiByName } from '../realm/emoji-choice.js';
import { RESOLVED_TOPIC_PREFIX } from '@chat/narrow';
import { ChatError, type ReactionType, type ViewedMessage, conversationOfKey } from '@chat/protocol';
import { prepareContent } from './content.js';
import { CallerContext } from '../context.js';
import { getMessages, type Located } from './fetch.js';
import { checkContent, normalizeTopic } from '../limits.js';
import { moveToChannel } from './move-channel.js';
import type { ApiOptions } from '../options.js';
import { sendMessage } from './send.js';
import { claimUploads } from '../uploads/uploads.js';

interface EditReply {
  moved_ids: number[];
  old_topic: string;
  resolved: boolean;
  detached_upload_paths: string[];
}

/** The automated notices of a topic move, posted by the realm's notification bot. */
async function postMoveNotices(
  caller: CallerContext,
  options: ApiOptions,
  channel: { id: number; name: string },
  edit: EditReply,
  newTopic: string,
  notify: { old: boolean; new: boolean },
) {
  const bot = await caller.actors.ask(caller.realm, { type: 'realm.notificationBot' });
  const botCaller = new CallerContext(caller.actors, bot);
  const who = `@_**${caller.principal.full_name}|${caller.principal.user_id}**`;
  const link = (topic: string) => `#**${channel.name}>${topic}**`;
  const count = edit.moved_ids.length === 1 ? 'A message was' : `${edit.moved_ids.length} messages were`;
  const post = (topic: string, content: string) =>
    sendMessage(botCaller, { type: 'stream', to: channel.id, topic, content }, options, 'Internal', true);
  if (edit.resolved) {
    if (notify.new) {
      const action = newTopic.startsWith(RESOLVED_TOPIC_PREFIX) ? 'resolved' : 'unresolved';
      await post(newTopic, `${who} has marked this topic as ${action}.`);
    }
    return;
  }
  if (notify.new) await post(newTopic, `This topic was moved here from ${link(edit.old_topic)} by ${who}.`);
  if (notify.old) await post(edit.old_topic, `${count} moved from this topic to ${link(newTopic)} by ${who}.`);
}

/** The message and its conversation, or `Invalid message(s)` if the caller may not see it. */
async function messageOf(caller: CallerContext, id: number): Promise<Located> {
  return ((await getMessages(caller, [id])) as [Located])[0];
}

/** The conversation of a message; its actor decides whether the caller may act on it. */
async function keyOf(caller: CallerContext, id: number): Promise<string> {
  return (await caller.locate([id])).get(id)!;
}

/**
 * The reaction a request names, as the original reads it: by name alone (an
 * active custom emoji first, then Unicode, then the extra ones), or by code
 * and type, checked against each other.
 */
async function reactionOf(
  caller: CallerContext,
  params: { emoji_name: string; emoji_code?: string; reaction_type?: string },
) {
  const custom = await customEmoji(caller);
  const chosen =
    params.emoji_code === undefined
      ? emojiByName(params.emoji_name, custom)
      : { code: params.emoji_code, type: params.reaction_type ?? 'unicode_emoji' };
  const emoji = checkEmoji(params.emoji_name, chosen.code, params.reaction_type ?? chosen.type, custom);
  return { ...emoji, user_id: caller.principal.user_id };
}

/**
 * The reaction a removal names, as the original's `remove_reaction` reads
 * it: by code and type (type "unicode_emoji" unless given), the code looked
 * up by name when only a name is given; not checked against the emoji in
 * use now (a deactivated custom emoji's reaction can still be removed). The
 * channel finds the caller's reaction by code and type.
 */
async function removalOf(
  caller: CallerContext,
  params: { emoji_name?: string; emoji_code?: string; reaction_type?: string },
) {
  let code = params.emoji_code;
  if (code === undefined) {
    if (params.emoji_name === undefined) {
      throw new ChatError(
        'BAD_REQUEST',
        'At least one of the following arguments must be present: emoji_name, emoji_code',
      );
    }
    code = emojiByName(params.emoji_name, await customEmoji(caller)).code;
  }
  // Any other type names no reaction, so the channel answers that it does not exist, as the original.
  const type = (params.reaction_type ?? 'unicode_emoji') as ReactionType;
  return {
    emoji_name: params.emoji_name ?? '',
    emoji_code: code,
    reaction_type: type,
    user_id: caller.principal.user_id,
  };
}

export function messageEditRoutes(options: ApiOptions): Route[] {
  const Reaction = {
    message_id: Type.Integer(),
    emoji_name: Type.String(),
    emoji_code: Type.Optional(Type.String()),
    reaction_type: Type.Optional(Type.String()),
  };
  const Removal = { ...Reaction, emoji_name: Type.Optional(Type.String()) };
  const reactionRoute = (method: 'POST' | 'DELETE') =>
    defineRoute({
      method,
      path: '/messages/{message_id}/reactions',
      auth: 'required',
      params: Type.Object(method === 'POST' ? Reaction : Removal),
      summary: method === 'POST' ? 'Add an emoji reaction' : 'Remove an emoji reaction',
      description: "Adds or removes the caller's emoji reaction on a message.",
      tags: ['messages'],
      async handler({ params, principal, actors }) {
        const caller = new CallerContext(actors, principal);
        const key = await keyOf(caller, params.message_id);
        await actors.ask(conversationOfKey(key), {
          type: method === 'POST' ? 'reaction.add' : 'reaction.remove',
          actor: principal,
          message_id: params.message_id,
          reaction:
            method === 'POST'
              ? await reactionOf(caller, params as { emoji_name: string })
              : await removalOf(caller, params),
        });
        return {};
      },
    });

  return [
    defineRoute({
      method: 'PATCH',
      path: '/messages/{message_id}',
      auth: 'required',
      params: Type.Object({
        message_id: Type.Integer(),
        topic: Type.Optional(Type.String()),
        propagate_mode: Type.Optional(
          Type.Union([Type.Literal('change_one'), Type.Literal('change_later'), Type.Literal('change_all')], {
            default: 'change_one',
          }),
        ),
        send_notification_to_old_thread: Type.Optional(Type.Boolean({ default: false })),
        send_notification_to_new_thread: Type.Optional(Type.Boolean({ default: true })),
        content: Type.Optional(Type.String()),
        prev_content_sha256: Type.Optional(Type.String()),
        stream_id: Type.Optional(Type.Integer()),
      }),
      aliases: { topic: ['subject'] },
      summary: 'Edit a message',
      description: "Changes a message's content, or moves it (and optionally its topic) to another topic.",
      tags: ['messages'],
      async handler({ params, principal, actors }) {
        if (params.content !== undefined && params.stream_id !== undefined) {
          throw new ChatError('BAD_REQUEST', 'Cannot change message content while changing channel');
        }
        if (params.content === undefined && params.topic === undefined && params.stream_id === undefined) {
          throw new ChatError('BAD_REQUEST', 'Nothing to change');
        }
        const caller = new CallerContext(actors, principal);
        const settings = await caller.settings();
        const located = await messageOf(caller, params.message_id);
        const { key, message } = located;
        const topic = params.topic !== undefined ? normalizeTopic(params.topic, settings) : undefined;
        // The empty topic cannot be resolved (as the original: the bare mark, or the mark and the display name).
        const mark = RESOLVED_TOPIC_PREFIX.trim();
        if (topic === mark || topic === `${RESOLVED_TOPIC_PREFIX}${settings.empty_topic_display_name}`) {
          throw new ChatError('BAD_REQUEST', 'General chat cannot be marked as resolved');
        }
        // The same channel as stream_id is a move within it, handled below.
        if (params.stream_id !== undefined && params.stream_id !== message.channel_id) {
          await moveToChannel(caller, options, located, {
            stream_id: params.stream_id,
            ...(topic !== undefined ? { topic } : {}),
            propagate_mode: params.propagate_mode ?? 'change_one',
            notify_old: params.send_notification_to_old_thread ?? false,
            notify_new: params.send_notification_to_new_thread ?? true,
          });
          return { detached_uploads: [] };
        }
        const prepared =
          params.content !== undefined ? await prepareContent(caller, checkContent(params.content)) : undefined;
        const edit = await actors.ask(conversationOfKey(key), {
          type: 'message.edit',
          actor: principal,
          message_id: params.message_id,
          ...(prepared ? { prepared } : {}),
          ...(topic !== undefined ? { topic } : {}),
          propagate_mode: params.propagate_mode ?? 'change_one',
          ...(params.prev_content_sha256 !== undefined ? { prev_content_sha256: params.prev_content_sha256 } : {}),
          notify_old: params.send_notification_to_old_thread ?? false,
          notify_new: params.send_notification_to_new_thread ?? true,
          settings,
          wildcard_threshold: options.wildcardThreshold,
        });
        if (topic !== undefined && edit.moved_ids.length > 0 && message.channel_id !== null) {
          await postMoveNotices(caller, options, { id: message.channel_id, name: message.channel_name! }, edit, topic, {
            old: params.send_notification_to_old_thread ?? false,
            new: params.send_notification_to_new_thread ?? true,
          });
        }
        // Content edits are the sender's own, so the sender's uploads are the ones to relink.
        const detached = prepared
          ? await claimUploads(caller, {
              message_id: params.message_id,
              key,
              date_sent: message.timestamp * 1000,
              paths: prepared.upload_paths,
              unlinked: edit.detached_upload_paths,
            })
          : [];
        return { detached_uploads: detached };
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/messages/{message_id}',
      auth: 'required',
      params: Type.Object({ message_id: Type.Integer() }),
      summary: 'Delete a message',
      description: 'Deletes a message the caller may delete.',
      tags: ['messages'],
      async handler({ params, principal, actors }) {
        const caller = new CallerContext(actors, principal);
        const key = await keyOf(caller, params.message_id);
        await actors.ask(conversationOfKey(key), {
          type: 'message.delete',
          actor: principal,
          message_id: params.message_id,
          settings: await caller.settings(),
        });
        return {};
      },
    }),
    reactionRoute('POST'),
    reactionRoute('DELETE'),
    defineRoute({
      method: 'GET',
      path: '/messages/{message_id}/history',
      auth: 'required',
      params: Type.Object({
        message_id: Type.Integer(),
        allow_empty_topic_name: Type.Optional(Type.Boolean({ default: false })),
      }),
      summary: "Get a message's edit history",
      description: 'Every version of a message, oldest first.',
      tags: ['messages'],
      async handler({ params, principal, actors }) {
        const caller = new CallerContext(actors, principal);
        const { message } = await messageOf(caller, params.message_id);
        return { message_history: historyOf(message) };
      },
    }),
  ];
}

/** Rebuilds each version of a message from its edits, walking back from the current one. */
function historyOf(m: ViewedMessage) {
  let content = m.content;
  let rendered = m.rendered;
  let topic = m.topic;
  const versions = [];
  for (const edit of [...m.edits].reverse()) {
    const entry: Record<string, unknown> = {
      topic,
      content,
      rendered_content: rendered,
      timestamp: edit.timestamp,
      user_id: edit.user_id,
    };
    if (edit.prev_content !== undefined) {
      Object.assign(entry, { prev_content: edit.prev_content, prev_rendered_content: edit.prev_rendered_content });
      content = edit.prev_content;
      rendered = edit.prev_rendered_content ?? rendered;
    }
    if (edit.prev_topic !== undefined) {
      entry.prev_topic = edit.prev_topic;
      topic = edit.prev_topic;
    }
    if (edit.prev_stream !== undefined) Object.assign(entry, { prev_stream: edit.prev_stream, stream: edit.stream });
    versions.push(entry);
  }
  versions.push({ topic, content, rendered_content: rendered, timestamp: m.timestamp, user_id: m.sender_id });
  return versions.reverse();
}
