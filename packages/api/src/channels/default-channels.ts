import { Type } from '@sinclair/typebox';
import { defineRoute, type Route } from '@chat/edge';
import { realmAddress } from '@chat/protocol';

/** The default channels new users join: administrators add and remove them (the realm checks). */
export function defaultChannelRoutes(): Route[] {
  const change = (method: 'POST' | 'DELETE', isDefault: boolean, summary: string) =>
    defineRoute({
      method,
      path: '/default_streams',
      auth: 'required',
      params: Type.Object({ stream_id: Type.Integer() }),
      summary,
      description: 'Default channels are the ones new users of the organization join; private ones cannot be.',
      tags: ['channels'],
      async handler({ params, principal, actors }) {
        await actors.ask(realmAddress(principal.realm), {
          type: 'realm.setDefaultChannel',
          actor_id: principal.user_id,
          channel_id: params.stream_id,
          is_default: isDefault,
        });
        return {};
      },
    });
  return [change('POST', true, 'Add a default channel'), change('DELETE', false, 'Remove a default channel')];
}
