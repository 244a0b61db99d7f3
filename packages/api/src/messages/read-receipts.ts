import { Type } from '@sinclair/typebox';
import { defineRoute, type Route } from '@chat/edge';
import { ChatError, userAddress } from '@chat/protocol';
import { CallerContext } from '../context.js';
import { getMessages, type Located } from './fetch.js';

/**
 * Who read a message, as the original answers it (when the organization
 * has `enable_read_receipts` on): its recipients who are
 * active, received it (not those who subscribed after it was sent) and
 * read it, apart from the sender, those who turned
 * `send_read_receipts` off, those who muted the caller (each recipient's
 * UserActor decides these four) and those the caller muted.
 */
export function readReceiptRoutes(): Route[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/messages/{message_id}/read_receipts',
      auth: 'required',
      params: Type.Object({ message_id: Type.Integer() }),
      summary: "Get a message's read receipts",
      description: 'The ids of the users who read the message and show it.',
      tags: ['messages'],
      response: Type.Object({ user_ids: Type.Array(Type.Integer()) }),
      async handler({ params, principal, actors }) {
        const caller = new CallerContext(actors, principal);
        const [{ key, message }] = (await getMessages(caller, [params.message_id])) as [Located];
        if (!(await caller.settings()).enable_read_receipts) {
          throw new ChatError('BAD_REQUEST', 'Read receipts are disabled in this organization.');
        }
        const recipients =
          message.channel_id === null
            ? message.dm_user_ids
            : (await caller.channelInfo(message.channel_id)).subscribers;
        const mine = await caller.state();
        const mutedByMe = new Set(mine.muted_user_ids ?? []);
        const candidates = recipients.filter((id) => id !== message.sender_id && !mutedByMe.has(id));
        const users = await caller.users(candidates);
        const active = candidates.filter((id) => users.get(id)?.is_active);
        const shown = await Promise.all(
          active.map((id) =>
            actors.ask(userAddress(principal.realm, id), {
              type: 'user.readReceipt',
              key,
              message_id: message.id,
              asker: principal.user_id,
            }),
          ),
        );
        return { user_ids: active.filter((_id, i) => shown[i]).sort((a, b) => a - b) };
      },
    }),
  ];
}
