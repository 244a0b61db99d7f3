import { Type } from '@sinclair/typebox';
import type { ActorClient } from '@chat/runtime';
import { defineRoute, type Route } from '@chat/edge';
import { realmAddress, type Principal } from '@chat/protocol';
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
        await deactivate(actors, principal, principal.user_id, true);
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
        const done = await deactivate(actors, principal, params.user_id, false);
        if (mailer && comment !== undefined) {
          await mailer.send(deactivationMail(done.delivery_email, done.realm_name, options.externalUrl, comment));
        }
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

/** Deactivates an account (`own`: the caller's, with the original's last-owner rules) and tells guests who knew it. */
async function deactivate(actors: ActorClient, actor: Principal, user_id: number, own: boolean) {
  let at = 0;
  const command = { type: 'realm.setActive', actor, user_id, active: false, own } as const;
  const done = await actors.ask(realmAddress(actor.realm), command, { onPosition: (p) => (at = p) });
  await tellDeactivation(actors, actor.realm, user_id, at);
  return done;
}
