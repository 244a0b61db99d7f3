import { Type } from '@sinclair/typebox';
import { defineRoute, type Route } from '@chat/edge';
import { ChatError, isAdministrator } from '@chat/protocol';
import { CallerContext } from '../context.js';
import { sendMessage } from '../messages/send.js';
import type { ApiOptions } from '../options.js';

/**
 * `POST /realm/test_welcome_bot_custom_message`: an administrator previews
 * the custom welcome text as new users would get it, a direct message to
 * themselves from the bot that welcomes them (here the notification bot, as
 * in invitations/onboard.ts: this server has no separate Welcome Bot).
 */
export function welcomeBotRoutes(options: ApiOptions): Route[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/realm/test_welcome_bot_custom_message',
      auth: 'required',
      params: Type.Object({ welcome_message_custom_text: Type.String({ maxLength: 8000 }) }),
      summary: 'Test welcome bot custom message',
      description: 'Sends the custom welcome message to the calling administrator.',
      tags: ['server_and_organizations'],
      response: Type.Object({ message_id: Type.Integer() }),
      async handler({ params, principal, actors }) {
        if (!isAdministrator(principal))
          throw new ChatError('UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');
        const text = params.welcome_message_custom_text;
        if (text.length === 0) throw new ChatError('BAD_REQUEST', 'Message must not be empty');
        const caller = new CallerContext(actors, principal);
        const bot = await actors.ask(caller.realm, { type: 'realm.notificationBot' });
        const request = { type: 'private' as const, to: [principal.user_id], content: text };
        const sent = await sendMessage(new CallerContext(actors, bot), request, options, 'Internal', true);
        return { message_id: sent.id };
      },
    }),
  ];
}
