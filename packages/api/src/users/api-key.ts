import { Type } from '@sinclair/typebox';
import { defineRoute, type Route } from '@chat/edge';
import { realmAddress } from '@chat/protocol';

/**
 * `POST /users/me/api_key/regenerate`, as the original's settings page and
 * clients call it: a new API key for the caller. The old key stops working
 * with the very next request on any edge, since every request's key is
 * checked by the realm's actor, which no edge caches.
 */
export function apiKeyRoutes(): Route[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/users/me/api_key/regenerate',
      auth: 'required',
      params: Type.Object({}),
      summary: 'Regenerate my API key',
      description:
        "Replaces the caller's API key with a new random one and answers it; the old key is refused at once.",
      tags: ['users'],
      response: Type.Object({ api_key: Type.String() }),
      async handler({ principal, actors }) {
        const { api_key } = await actors.ask(realmAddress(principal.realm), {
          type: 'realm.resetApiKey',
          email: principal.email,
        });
        return { api_key };
      },
    }),
  ];
}
