import { Type } from '@sinclair/typebox';
import { defineRoute, type Route } from '@chat/edge';
import { ChatError, conversationOfKey, userAddress } from '@chat/protocol';
import { CallerContext } from '../context.js';
import { getMessages, type Located } from './fetch.js';

/**
 * Who read a message, as the original answers it (when the organization
 * has `enable_read_receipts` on): those who are active, have it (received
 * it, even if they unsubscribed since; not who subscribed after it was
 * sent) and read it, apart from the sender, those who turned
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
        // Who has it (former subscribers too, as the original's UserMessage rows), and today's subscribers,
        // whose own actor knows whether they have it by hand (the original's historical row).
        const holders = await actors.ask(conversationOfKey(key), {
          type: 'message.holders',
          actor: principal,
          message_id: message.id,
        });
        const subscribers =
          message.channel_id === null ? [] : (await caller.channelInfo(message.channel_id)).subscribers;
        const held = new Set(holders);
        const recipients = [...new Set([...holders, ...subscribers])];
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
              held: held.has(id),
            }),
          ),
        );
        return { user_ids: active.filter((_id, i) => shown[i]).sort((a, b) => a - b) };
      },
    }),
  ];
}
