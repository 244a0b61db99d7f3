import { Type } from '@sinclair/typebox';
import { defineRoute, type Route } from '@chat/edge';
import { conversationOfKey } from '@chat/protocol';
import { CallerContext } from '../context.js';

/**
 * `POST /submessage`, which the reference does not document but the
 * original serves: widgets (polls, todo lists) keep their state as
 * submessages of their message. The conversation's actor decides who may
 * add one and checks what a widget takes (`actors/channel/src/submessage.ts`).
 */
export function submessageRoutes(): Route[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/submessage',
      auth: 'required',
      params: Type.Object({
        message_id: Type.Integer({ description: 'The message the submessage is attached to.' }),
        msg_type: Type.String({ description: "The kind of submessage; `widget` for the web app's widgets." }),
        content: Type.String({ description: 'The submessage, as JSON text; a poll or todo widget checks it.' }),
      }),
      summary: 'Add a submessage',
      description:
        'Attaches a submessage (a poll vote, a new option or task, a title) to a message the caller can access. ' +
        "Others may add one only after the message's sender has. Everyone who received the message gets a " +
        '`submessage` event. Not in the reference: the original serves it for its widgets.',
      tags: ['messages'],
      async handler({ params, principal, actors }) {
        const caller = new CallerContext(actors, principal);
        const key = (await caller.locate([params.message_id])).get(params.message_id)!;
        await actors.ask(conversationOfKey(key), {
          type: 'submessage.add',
          actor: principal,
          message_id: params.message_id,
          msg_type: params.msg_type,
          content: params.content,
        });
        return {};
      },
    }),
  ];
}
