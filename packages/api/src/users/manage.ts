import { Type } from '@sinclair/typebox';
import { defineRoute, type Route } from '@chat/edge';
import {
  channelAddress,
  conversationOfKey,
  participantsOfKey,
  isAdministrator,
  isRole,
  ChatError,
  realmAddress,
  ROLES,
  userAddress,
  type Principal,
} from '@chat/protocol';
import type { ActorClient } from '@chat/runtime';
import { renderUser } from './json.js';
import { accessibleUserIds, insufficientPermission, mayAccess } from './access.js';
import { CallerContext } from '../context.js';
import { setProfileData } from '../realm/profile-fields.js';
import type { ApiOptions } from '../options.js';
import { fakeEmailDomain } from '../email-domain.js';

/** Addresses go to the `{email}` routes, everything else to the `{user_id}` ones. */
const isAddress = (path: Record<string, string>) => (path.email ?? '').includes('@');

const ClientGravatar = Type.Optional(Type.Boolean({ default: true }));
const UpdateParams = {
  full_name: Type.Optional(Type.String()),
  role: Type.Optional(Type.Integer()),
  profile_data: Type.Optional(
    Type.Array(Type.Object({ id: Type.Integer(), value: Type.Union([Type.String(), Type.Array(Type.Integer())]) })),
  ),
  new_email: Type.Optional(
    Type.String({
      description:
        'A new address for the user, changed at once; the caller must be an administrator holding the `can_change_user_emails` permission.',
    }),
  ),
};

/** By the real address (when the caller may see it) or the placeholder `user<id>@<server host>`. */
async function userByEmail(actors: ActorClient, principal: Principal, email: string, options: ApiOptions) {
  return actors.ask(realmAddress(principal.realm), {
    type: 'realm.userByEmail',
    email,
    viewer: { user_id: principal.user_id, role: principal.role },
    domain: fakeEmailDomain(options.externalUrl, options.fakeEmailDomain),
  });
}

async function updateUser(
  actors: ActorClient,
  principal: Principal,
  userId: number,
  params: {
    full_name?: string | undefined;
    role?: number | undefined;
    profile_data?: { id: number; value: unknown }[] | undefined;
    new_email?: string | undefined;
  },
): Promise<Record<string, never>> {
  const realm = realmAddress(principal.realm);
  if (params.role !== undefined && !isRole(params.role)) throw new ChatError('BAD_REQUEST', 'Invalid role');
  if (params.profile_data !== undefined) {
    // Only administrators change another's values (the realm checks again).
    if (!isAdministrator(principal) && userId !== principal.user_id)
      throw new ChatError('UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');
    await setProfileData(actors, principal, userId, params.profile_data);
  }
  const others = params.profile_data !== undefined || params.new_email !== undefined;
  if (params.full_name !== undefined || params.role !== undefined || !others) {
    await actors.ask(realm, {
      type: 'realm.updateUser',
      actor_id: principal.user_id,
      user_id: userId,
      ...(params.full_name !== undefined ? { full_name: params.full_name } : {}),
      ...(params.role !== undefined ? { role: params.role } : {}),
    });
    if (params.role !== undefined) await tellGuestRole(actors, principal.realm, userId, params.role === ROLES.guest);
  }
  if (params.new_email !== undefined) {
    const command = { actor: principal, user_id: userId, new_email: params.new_email };
    await actors.ask(realm, { type: 'realm.changeUserEmail', ...command });
  }
  return {};
}

/**
 * The channels where the user has messages without being subscribed keep
 * their events from him while he is a guest (a public channel's reactions and
 * deletions, as the original asks the role at the time): they learn of the
 * change. Those are the channels he left and those where he has historical
 * rows only (a reaction or a star makes the row and marks it read, so the
 * channel is among his read keys).
 */
async function tellGuestRole(actors: ActorClient, realm: string, userId: number, guest: boolean): Promise<void> {
  const { unsubscribed, subscriptions, read } = await actors.ask(userAddress(realm, userId), { type: 'user.state' });
  const left = unsubscribed.map((id) => channelAddress(realm, id).key);
  const subscribed = new Set(Object.keys(subscriptions).map((id) => channelAddress(realm, Number(id)).key));
  const others = Object.keys(read).filter((key) => participantsOfKey(key) === undefined && !subscribed.has(key));
  const change = { type: 'channel.guestRole' as const, user_id: userId, guest };
  await Promise.all([...new Set([...left, ...others])].map((key) => actors.ask(conversationOfKey(key), change)));
}

/**
 * Another user's account: read by address, and changed by administrators
 * (name and role; making or unmaking an owner takes an owner) or by the
 * owner of a bot. The realm decides who may.
 */
export function userAdminRoutes(options: ApiOptions): Route[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/users/{email}',
      pathMatch: isAddress,
      auth: 'required',
      params: Type.Object({
        email: Type.String({ description: "The target user's address." }),
        client_gravatar: ClientGravatar,
        include_custom_profile_fields: Type.Optional(Type.Boolean({ default: false })),
      }),
      summary: 'Get a user by email',
      description: 'One user of the organization, found by address; deactivated users and bots too.',
      tags: ['users'],
      async handler({ params, principal, actors }) {
        const user = await userByEmail(actors, principal, params.email, options);
        if (!mayAccess(await accessibleUserIds(new CallerContext(actors, principal)), user))
          throw insufficientPermission();
        return {
          user: renderUser(user, principal, params.client_gravatar ?? true, params.include_custom_profile_fields),
        };
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/users/{email}',
      pathMatch: isAddress,
      auth: 'required',
      params: Type.Object({ email: Type.String(), ...UpdateParams }),
      summary: 'Update a user by email',
      description: 'As PATCH /users/{user_id}, naming the user by address.',
      tags: ['users'],
      async handler({ params, principal, actors }) {
        const user = await userByEmail(actors, principal, params.email, options);
        return updateUser(actors, principal, user.user_id, params);
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/users/{user_id}',
      auth: 'required',
      params: Type.Object({ user_id: Type.Integer(), ...UpdateParams }),
      summary: 'Update a user',
      description: "Changes another user's full name, role, custom profile data or address.",
      tags: ['users'],
      async handler({ params, principal, actors }) {
        return updateUser(actors, principal, params.user_id, params);
      },
    }),
  ];
}
