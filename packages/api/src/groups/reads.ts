import { Type } from '@sinclair/typebox';
import { defineRoute, type Route } from '@chat/edge';
import { ChatError, isGuest, realmAddress, type Principal } from '@chat/protocol';

/** The original's `require_member_or_admin`: the group operations are not for guests or bots. */
export function requireMember(principal: Principal): void {
  if (isGuest(principal)) throw new ChatError('BAD_REQUEST', 'Not allowed for guest users');
  if (principal.is_bot) throw new ChatError('BAD_REQUEST', 'This endpoint does not accept bot requests.');
}

/** Who is in a group and which groups are below it; members and administrators only, as the original. */
export function groupReadRoutes(): Route[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/user_groups/{user_group_id}/members',
      auth: 'required',
      params: Type.Object({
        user_group_id: Type.Integer(),
        direct_member_only: Type.Optional(Type.Boolean({ default: false })),
      }),
      summary: 'Get user group members',
      description: 'The active members of a group, through its subgroups too unless `direct_member_only`.',
      tags: ['users'],
      response: Type.Object({ members: Type.Array(Type.Integer()) }),
      async handler({ params, principal, actors }) {
        requireMember(principal);
        const members = await actors.ask(realmAddress(principal.realm), {
          type: 'realm.userGroupMembers',
          group_id: params.user_group_id,
          direct_only: params.direct_member_only ?? false,
        });
        return { members };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/user_groups/{user_group_id}/members/{user_id}',
      auth: 'required',
      params: Type.Object({
        user_group_id: Type.Integer(),
        user_id: Type.Integer(),
        direct_member_only: Type.Optional(Type.Boolean({ default: false })),
      }),
      summary: 'Get user group membership status',
      description: 'Whether a user is in a group, directly or through its subgroups.',
      tags: ['users'],
      response: Type.Object({ is_user_group_member: Type.Boolean() }),
      async handler({ params, principal, actors }) {
        requireMember(principal);
        const member = await actors.ask(realmAddress(principal.realm), {
          type: 'realm.isUserGroupMember',
          group_id: params.user_group_id,
          user_id: params.user_id,
          direct_only: params.direct_member_only ?? false,
        });
        return { is_user_group_member: member };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/user_groups/{user_group_id}/subgroups',
      auth: 'required',
      params: Type.Object({
        user_group_id: Type.Integer(),
        direct_subgroup_only: Type.Optional(Type.Boolean({ default: false })),
      }),
      summary: 'Get subgroups of a user group',
      description: 'The groups below a group, at every depth unless `direct_subgroup_only`.',
      tags: ['users'],
      response: Type.Object({ subgroups: Type.Array(Type.Integer()) }),
      async handler({ params, principal, actors }) {
        requireMember(principal);
        const subgroups = await actors.ask(realmAddress(principal.realm), {
          type: 'realm.userGroupSubgroups',
          group_id: params.user_group_id,
          direct_only: params.direct_subgroup_only ?? false,
        });
        return { subgroups };
      },
    }),
  ];
}
