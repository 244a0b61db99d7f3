import { Type } from '@sinclair/typebox';
import { defineRoute, type Route } from '@chat/edge';
import { CallerContext } from '../context.js';

const Keys = Type.Optional(Type.Array(Type.String(), { description: 'The keys; absent: every key.' }));

/** `/bot_storage`: what a bot keeps between runs, in its own UserActor (`actors/user/src/personal/bot-storage.ts`). */
export function botStorageRoutes(): Route[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/bot_storage',
      auth: 'required',
      params: Type.Object({ keys: Keys }),
      summary: 'Get bot storage',
      description: "Values of the caller's storage; naming a missing key fails.",
      tags: ['bots'],
      response: Type.Object({ storage: Type.Record(Type.String(), Type.String()) }),
      async handler({ params, principal, actors }) {
        const caller = new CallerContext(actors, principal);
        return actors.ask(caller.me, {
          type: 'user.botStorage',
          keys: params.keys,
        });
      },
    }),
    defineRoute({
      method: 'PUT',
      path: '/bot_storage',
      auth: 'required',
      params: Type.Object({ storage: Type.Record(Type.String(), Type.String(), { description: 'Keys to values.' }) }),
      summary: 'Update bot storage',
      description: 'Sets keys; the whole storage is at most 10,000,000 characters of keys and values.',
      tags: ['bots'],
      async handler({ params, principal, actors }) {
        const caller = new CallerContext(actors, principal);
        await actors.ask(caller.me, { type: 'user.putBotStorage', entries: params.storage });
        return {};
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/bot_storage',
      auth: 'required',
      params: Type.Object({ keys: Keys }),
      summary: 'Remove bot storage',
      description: 'Removes the keys (absent: every key); naming a missing key fails.',
      tags: ['bots'],
      async handler({ params, principal, actors }) {
        const caller = new CallerContext(actors, principal);
        await actors.ask(caller.me, { type: 'user.removeBotStorage', keys: params.keys });
        return {};
      },
    }),
  ];
}
