import { Type } from '@sinclair/typebox';
import { defineRoute, type Route } from '@chat/edge';
import { ChatError, type ViewedMessage } from '@chat/protocol';
import { CallerContext } from '../context.js';
import { LIMITS } from '../limits.js';
import type { ApiOptions } from '../options.js';
import { getMessages, type Located } from './fetch.js';
import { sendMessage } from './send.js';

/** The original's limit on a report's description (`Realm.MAX_REPORT_MESSAGE_EXPLANATION_LENGTH`). */
const MAX_DESCRIPTION_LENGTH = 1000;
/** How much of the reported message the report quotes: room is left for the description and the frame. */
const MAX_SNIPPET_LENGTH = LIMITS.max_message_length - MAX_DESCRIPTION_LENGTH - 500;
const TRUNCATED = '\n[message truncated]';

const mention = (user: { full_name: string; user_id: number }) => `@_**${user.full_name}|${user.user_id}**`;

function snippet(content: string): string {
  const chars = [...content];
  if (chars.length <= MAX_SNIPPET_LENGTH) return content;
  return chars.slice(0, MAX_SNIPPET_LENGTH - TRUNCATED.length).join('') + TRUNCATED;
}

/** Where the message was sent, as the report's first line says it. */
async function sentTo(caller: CallerContext, message: ViewedMessage, sender: string): Promise<string> {
  if (message.channel_id !== null) {
    return `reported #**${message.channel_name}>${message.topic}@${message.id}** sent by ${sender}`;
  }
  if (message.dm_user_ids.length <= 2) return `reported a DM sent by ${sender} to ${mention(caller.principal)}`;
  const users = await caller.users(message.dm_user_ids);
  const names = message.dm_user_ids.map((id) => mention(users.get(id)!));
  const last = names.pop()!;
  return `reported a DM sent by ${sender} to ${names.join(', ')}, and ${last}`;
}

/** Reports a message to the organization's moderation request channel, posted by the notification bot. */
export function reportRoutes(options: ApiOptions): Route[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/messages/{message_id}/report',
      auth: 'required',
      params: Type.Object({
        message_id: Type.Integer(),
        report_type: Type.Union(['spam', 'harassment', 'inappropriate', 'norms', 'other'].map((t) => Type.Literal(t))),
        description: Type.Optional(Type.String({ maxLength: MAX_DESCRIPTION_LENGTH, default: '' })),
      }),
      summary: 'Report a message',
      description: "Sends a report of the message to the organization's moderation request channel.",
      tags: ['messages'],
      response: Type.Object({}),
      async handler({ params, principal, actors }) {
        const description = params.description ?? '';
        if (params.report_type === 'other' && description === '') {
          throw new ChatError('BAD_REQUEST', 'An explanation is required.');
        }
        const caller = new CallerContext(actors, principal);
        const { settings } = await actors.ask(caller.realm, { type: 'realm.organization' });
        const channelId = settings.moderation_request_channel_id;
        if (typeof channelId !== 'number' || channelId < 0) {
          throw new ChatError(
            'BAD_REQUEST',
            'Moderation request channel must be specified to enable message reporting.',
          );
        }
        const [{ message }] = (await getMessages(caller, [params.message_id])) as [Located];
        const [sender] = [...(await caller.users([message.sender_id])).values()];
        const reported = mention(sender!);
        const content = [
          `${mention(principal)} ${await sentTo(caller, message, reported)}.`,
          `- Reason: **${params.report_type}**`,
          '- Notes:',
          '```quote',
          description,
          '```',
          `\`\`\` spoiler **Message sent by ${reported}**`,
          snippet(message.content),
          '```',
        ].join('\n');
        const bot = await actors.ask(caller.realm, { type: 'realm.notificationBot' });
        const request = { type: 'stream', to: channelId, topic: `${sender!.full_name}'s moderation requests`, content };
        await sendMessage(new CallerContext(actors, bot), request, options, 'Internal', true);
        return {};
      },
    }),
  ];
}
