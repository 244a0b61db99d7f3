import { Type } from '@sinclair/typebox';
import { defineRoute, type Route } from '@chat/edge';
import { ChatError } from '@chat/protocol';
import { CallerContext } from '../context.js';
import { markRead } from '../messages/flags.js';

/** The original's limit on one alert word (or phrase). */
const MAX_ALERT_WORD_LENGTH = 100;

const AlertWords = Type.Array(Type.String({ maxLength: MAX_ALERT_WORD_LENGTH }), {
  description: 'Words (or phrases), compared without regard to case.',
});
const AlertWordsReply = Type.Object({ alert_words: Type.Array(Type.String()) });

/** Muted users and alert words: whom and what the caller hears. */
export function mutingRoutes(): Route[] {
  const mutedUserRoute = (method: 'POST' | 'DELETE') =>
    defineRoute({
      method,
      path: '/users/me/muted_users/{muted_user_id}',
      auth: 'required',
      params: Type.Object({ muted_user_id: Type.Integer() }),
      summary: method === 'POST' ? 'Mute a user' : 'Unmute a user',
      description:
        method === 'POST'
          ? 'Mutes a user: what they sent and send is read at once, and they do not see the caller read theirs.'
          : 'Unmutes a user the caller muted.',
      tags: ['users'],
      response: Type.Object({}),
      async handler({ params, principal, actors }) {
        const id = params.muted_user_id;
        if (method === 'POST' && id === principal.user_id) throw new ChatError('BAD_REQUEST', 'Cannot mute self');
        const caller = new CallerContext(actors, principal);
        // Bots and deactivated users may be muted too, as in the original.
        if (!(await caller.users([id])).has(id)) throw new ChatError('BAD_REQUEST', 'No such user');
        if (method === 'DELETE') {
          await actors.ask(caller.me, { type: 'user.unmuteUser', muted_user_id: id });
          return {};
        }
        await actors.ask(caller.me, { type: 'user.muteUser', muted_user_id: id });
        await markRead(caller, [{ operator: 'sender', operand: id, negated: false }]);
        return {};
      },
    });
  const alertWordsRoute = (method: 'POST' | 'DELETE') =>
    defineRoute({
      method,
      path: '/users/me/alert_words',
      auth: 'required',
      params: Type.Object({ alert_words: AlertWords }),
      summary: method === 'POST' ? 'Add alert words' : 'Remove alert words',
      description:
        method === 'POST' ? 'Adds alert words; answers all of them.' : 'Removes alert words; answers the rest.',
      tags: ['users'],
      response: AlertWordsReply,
      async handler({ params, principal, actors }) {
        const caller = new CallerContext(actors, principal);
        const type = method === 'POST' ? 'user.addAlertWords' : 'user.removeAlertWords';
        return actors.ask(caller.me, { type, words: params.alert_words });
      },
    });
  return [
    mutedUserRoute('POST'),
    mutedUserRoute('DELETE'),
    defineRoute({
      method: 'GET',
      path: '/users/me/alert_words',
      auth: 'required',
      params: Type.Object({}),
      summary: 'Get all alert words',
      description: "The caller's alert words.",
      tags: ['users'],
      response: AlertWordsReply,
      async handler({ principal, actors }) {
        const caller = new CallerContext(actors, principal);
        return actors.ask(caller.me, { type: 'user.alertWords' });
      },
    }),
    alertWordsRoute('POST'),
    alertWordsRoute('DELETE'),
  ];
}
