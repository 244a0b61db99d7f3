import { Type } from '@sinclair/typebox';
import { defineRoute, type Route } from '@chat/edge';
import { realmAddress } from '@chat/protocol';
import { tellDeactivation } from './access-events.js';

const UserId = Type.Object({ user_id: Type.Integer({ description: "The target user's ID." }) });

/** One of the two routes that set whether an account is active (administrators). */
function setActiveRoute(
  method: 'DELETE' | 'POST',
  path: string,
  active: boolean,
  summary: string,
  description: string,
) {
  return defineRoute({
    method,
    path,
    auth: 'required',
    // No notification mail is sent yet, so deactivation_notification_comment is reported as ignored.
    params: UserId,
    summary,
    description,
    tags: ['users'],
    async handler({ params, principal, actors }) {
      const command = { type: 'realm.setActive', actor: principal, user_id: params.user_id, active } as const;
      await actors.ask(realmAddress(principal.realm), command);
      if (!active) await tellDeactivation(actors, principal.realm, params.user_id);
      return {};
    },
  });
}

export function deactivationRoutes(): Route[] {
  return [
    defineRoute({
      method: 'DELETE',
      path: '/users/me',
      auth: 'required',
      params: Type.Object({}),
      summary: 'Deactivate own user',
      description: "Deactivates the caller's account, unless it is the organization's only user or only owner.",
      tags: ['users'],
      async handler({ principal, actors }) {
        await actors.ask(realmAddress(principal.realm), {
          type: 'realm.setActive',
          actor: principal,
          user_id: principal.user_id,
          active: false,
          own: true,
        });
        await tellDeactivation(actors, principal.realm, principal.user_id);
        return {};
      },
    }),
    setActiveRoute(
      'DELETE',
      '/users/{user_id}',
      false,
      'Deactivate a user',
      'The account can no longer log in and leaves its groups; what it wrote stays.',
    ),
    setActiveRoute(
      'POST',
      '/users/{user_id}/reactivate',
      true,
      'Reactivate a user',
      'A deactivated account can log in again.',
    ),
  ];
}
