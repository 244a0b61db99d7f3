import { Type } from '@sinclair/typebox';
import { defineRoute, type Route } from '@chat/edge';
import { ChatError, isRole, ROLES } from '@chat/protocol';
import { joinLink, newKey } from './confirmations.js';
import { CallerContext } from '../context.js';
import { requireMember } from '../groups/reads.js';
import { checkChannels } from './checks.js';
import { DEFAULT_VALIDITY_MINUTES, welcomeText } from './invites.js';
import type { ApiOptions } from '../options.js';

/**
 * Reusable invitation links (`/invites/multiuse`): one link, opened by any
 * number of people, each signing up on the join page (join.ts) with their
 * own name, address and password, and landing with the link's role,
 * channels and groups, until it expires or is revoked.
 */
export function inviteLinkRoutes(options: ApiOptions): Route[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/invites/multiuse',
      auth: 'required',
      params: Type.Object({
        invite_expires_in_minutes: Type.Optional(
          Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'null: never expires.' }),
        ),
        invite_as: Type.Optional(Type.Integer({ default: ROLES.member, description: 'Role of the new users.' })),
        stream_ids: Type.Optional(Type.Array(Type.Integer(), { description: 'Channels to subscribe new users to.' })),
        group_ids: Type.Optional(Type.Array(Type.Integer(), { description: 'User groups to add new users to.' })),
        include_realm_default_subscriptions: Type.Optional(Type.Boolean({ default: false })),
        welcome_message_custom_text: Type.Optional(
          Type.Union([Type.String(), Type.Null()], {
            description: 'Administrators only; null: the organization default.',
          }),
        ),
      }),
      response: Type.Object({ invite_link: Type.String() }),
      summary: 'Create a reusable invitation link',
      description: 'A link anyone may use to join with the given role, channels and groups.',
      tags: ['invites'],
      async handler({ params, principal, actors }) {
        requireMember(principal);
        const caller = new CallerContext(actors, principal);
        const role = params.invite_as ?? ROLES.member;
        if (!isRole(role)) throw new ChatError('BAD_REQUEST', 'Invalid invite_as');
        const welcome = welcomeText(params.welcome_message_custom_text);
        const streamIds = params.stream_ids ?? [];
        const minutes = params.invite_expires_in_minutes;
        const { key, hash } = newKey();
        await actors.ask(caller.realm, {
          type: 'realm.createInviteLink',
          inviter: principal,
          key,
          key_hash: hash,
          options: {
            role,
            stream_ids: streamIds,
            group_ids: params.group_ids ?? [],
            include_realm_default_subscriptions: params.include_realm_default_subscriptions ?? false,
            welcome_message_custom_text: welcome,
            expires_in_minutes:
              minutes === undefined ? (options.invitationValidityMinutes ?? DEFAULT_VALIDITY_MINUTES) : minutes,
          },
          channels: await checkChannels(caller, streamIds),
        });
        return { invite_link: joinLink(options, key) };
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/invites/multiuse/{invite_id}',
      auth: 'required',
      params: Type.Object({ invite_id: Type.Integer({ description: 'The reusable link to revoke.' }) }),
      summary: 'Revoke a reusable invitation link',
      description: 'The link stops working; accounts made with it stay.',
      tags: ['invites'],
      async handler({ params, principal, actors }) {
        requireMember(principal);
        const caller = new CallerContext(actors, principal);
        await actors.ask(caller.realm, {
          type: 'realm.revokeInviteLink',
          actor: principal,
          invite_id: params.invite_id,
        });
      },
    }),
  ];
}
