import { Type } from '@sinclair/typebox';
import { defineRoute, type Route } from '@chat/edge';
import { ChatError, isAdministrator } from '@chat/protocol';
import { CallerContext } from '../context.js';

const bad = (msg: string) => new ChatError('BAD_REQUEST', msg);

/** Questions about one channel: whether a user is subscribed, and the channel's e-mail address. */
export function channelLookupRoutes(): Route[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/users/{user_id}/subscriptions/{stream_id}',
      auth: 'required',
      params: Type.Object({ user_id: Type.Integer(), stream_id: Type.Integer() }),
      summary: 'Get subscription status',
      description: 'Whether a user is subscribed to a channel the caller may see.',
      tags: ['channels'],
      response: Type.Object({ is_subscribed: Type.Boolean() }),
      async handler({ params, principal, actors }) {
        const caller = new CallerContext(actors, principal);
        // The original's access_user_by_id: bots are no users here, deactivated ones are named so.
        const user = (await caller.users([params.user_id])).get(params.user_id);
        if (!user || user.is_bot) throw bad('No such user');
        if (!user.is_active) throw bad('User is deactivated');
        const info = await caller.channelInfo(params.stream_id);
        return { is_subscribed: info.subscribers.includes(user.user_id) };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/streams/{stream_id}/email_address',
      auth: 'required',
      params: Type.Object({ stream_id: Type.Integer(), sender_id: Type.Optional(Type.Integer()) }),
      summary: 'Get channel email address',
      description:
        'The address that posts to the channel by e-mail. This server has no incoming e-mail gateway, ' +
        'so, as the original answers without one, the address is empty.',
      tags: ['channels'],
      response: Type.Object({ email: Type.String() }),
      async handler({ params, principal, actors }) {
        const caller = new CallerContext(actors, principal);
        await caller.channelInfo(params.stream_id);
        const sender = params.sender_id;
        if (sender !== undefined && sender !== principal.user_id) {
          // The original's access_bot_by_id: a bot the caller owns (or administers).
          const bot = (await caller.users([sender])).get(sender);
          if (!bot || !bot.is_bot) throw bad('No such bot');
          if (bot.bot_owner_id !== principal.user_id && !isAdministrator(principal)) {
            throw bad('Insufficient permission');
          }
        }
        return { email: '' };
      },
    }),
  ];
}
