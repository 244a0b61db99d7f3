import { Type } from '@sinclair/typebox';
import { defineRoute, type Route } from '@chat/edge';
import { realmAddress } from '@chat/protocol';
import { tellDeactivation } from './access-events.js';
import { deactivationMail, mailerOf } from '../invitations/confirmations.js';
import type { ApiOptions } from '../options.js';

const UserId = Type.Object({ user_id: Type.Integer({ description: "The target user's ID." }) });

const Deactivation = Type.Object({
  user_id: Type.Integer({ description: "The target user's ID." }),
  deactivation_notification_comment: Type.Optional(
    Type.String({
      maxLength: 2000,
      description:
        'When given, the deactivated user is mailed a notice of the deactivation; when not empty, the notice quotes this text.',
    }),
  ),
});

export function deactivationRoutes(options: ApiOptions): Route[] {
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
    defineRoute({
      method: 'DELETE',
      path: '/users/{user_id}',
      auth: 'required',
      params: Deactivation,
      summary: 'Deactivate a user',
      description: 'The account can no longer log in and leaves its groups; what it wrote stays.',
      tags: ['users'],
      async handler({ params, principal, actors }) {
        const comment = params.deactivation_notification_comment;
        const mailer = comment === undefined ? null : mailerOf(options);
        const command = { type: 'realm.setActive', actor: principal, user_id: params.user_id, active: false } as const;
        const done = await actors.ask(realmAddress(principal.realm), command);
        if (mailer && comment !== undefined) {
          await mailer.send(deactivationMail(done.delivery_email, done.realm_name, options.externalUrl, comment));
        }
        await tellDeactivation(actors, principal.realm, params.user_id);
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
        const command = { type: 'realm.setActive', actor: principal, user_id: params.user_id, active: true } as const;
        await actors.ask(realmAddress(principal.realm), command);
        return {};
      },
    }),
  ];
}
