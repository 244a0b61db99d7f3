import { Type } from '@sinclair/typebox';
import { defineRoute, type Route } from '@chat/edge';
import { realmAddress } from '@chat/protocol';

const UserId = Type.Object({ user_id: Type.Integer({ description: "The target user's ID." }) });

/** Deactivating and reactivating accounts (administrators). */
export function deactivationRoutes(): Route[] {
  return [
    defineRoute({
      method: 'DELETE',
      path: '/users/{user_id}',
      auth: 'required',
      // No notification mail is sent yet, so deactivation_notification_comment is reported as ignored.
      params: UserId,
      summary: 'Deactivate a user',
      description: 'The account can no longer log in and leaves its groups; what it wrote stays.',
      tags: ['users'],
      async handler({ params, principal, actors }) {
        await actors.ask(realmAddress(principal.realm), {
          type: 'realm.setActive',
          actor: principal,
          user_id: params.user_id,
          active: false,
        });
        return {};
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/users/{user_id}/reactivate',
      auth: 'required',
      params: UserId,
      summary: 'Reactivate a user',
      description: 'A deactivated account can log in again.',
      tags: ['users'],
      async handler({ params, principal, actors }) {
        await actors.ask(realmAddress(principal.realm), {
          type: 'realm.setActive',
          actor: principal,
          user_id: params.user_id,
          active: true,
        });
        return {};
      },
    }),
  ];
}
