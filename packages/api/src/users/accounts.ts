import { Type } from '@sinclair/typebox';
import { defineRoute, type Route } from '@chat/edge';
import {
  ChatError,
  hashPassword,
  isAdministrator,
  mayCreateUsers,
  realmAddress,
  ROLES,
  DECOY_PASSWORD_HASH,
  verifyPassword,
} from '@chat/protocol';
import { CallerContext } from '../context.js';
import { renderDescription } from '../markdown.js';
import { FEATURE_LEVEL, ZULIP_VERSION, type ApiOptions } from '../options.js';
import { gravatarUrl, renderUser } from './json.js';
import { accessibleUserIds, insufficientPermission, mayAccess } from './access.js';
import { startSession } from '../sessions/sessions.js';

// Verified when the username is unknown, so both failures cost the same time.

const wrongLogin = () => new ChatError('AUTHENTICATION_FAILED', 'Your username or password is incorrect');

const ApiKeyResponse = Type.Object({ api_key: Type.String(), email: Type.String(), user_id: Type.Integer() });
const ClientGravatar = Type.Optional(
  Type.Boolean({ default: true, description: 'Whether the client computes gravatar URLs itself.' }),
);

/** Server settings, API keys and the user directory: operation 7 and its neighbours. */
export function accountRoutes(options: ApiOptions): Route[] {
  const realmOf = (request: Parameters<ApiOptions['realmOf']>[0]) => realmAddress(options.realmOf(request));
  const development = options.mode === 'development';

  return [
    defineRoute({
      method: 'GET',
      path: '/server_settings',
      auth: 'none',
      params: Type.Object({}),
      summary: 'Get server settings',
      description: 'What a client needs before logging in. No authentication.',
      tags: ['server_and_organizations'],
      async handler({ actors, request }) {
        const realm = await actors.ask(realmOf(request), { type: 'realm.info' });
        // As the register's realm_authentication_methods: what the server offers and the realm has on.
        const { Dev: dev, Email: email } = realm.authentication;
        return {
          authentication_methods: {
            password: email,
            dev: development && realm.development && dev,
            email,
            ldap: false,
            remoteuser: false,
            github: false,
            azuread: false,
            gitlab: false,
            google: false,
            apple: false,
            saml: false,
            'openid connect': false,
          },
          external_authentication_methods: [],
          zulip_feature_level: FEATURE_LEVEL,
          zulip_version: ZULIP_VERSION,
          zulip_merge_base: ZULIP_VERSION,
          push_notifications_enabled: false,
          is_incompatible: false,
          email_auth_enabled: email,
          require_email_format_usernames: true,
          realm_url: options.externalUrl,
          realm_uri: options.externalUrl,
          realm_name: realm.name,
          realm_icon: gravatarUrl(realm.string_id, 1),
          realm_description: renderDescription(realm.description),
          realm_web_public_access_enabled: realm.web_public_access_enabled,
        };
      },
    }),

    defineRoute({
      method: 'POST',
      path: '/fetch_api_key',
      auth: 'none',
      params: Type.Object({
        username: Type.String({ description: "The user's e-mail address." }),
        password: Type.String({ description: "The user's password." }),
      }),
      summary: 'Fetch an API key (production)',
      description: 'Exchanges a username and password for the API key.',
      tags: ['authentication'],
      response: ApiKeyResponse,
      async handler({ params, actors, request, limits }) {
        // Failed attempts are counted per username (the original's authenticate_by_username).
        const username = `${options.realmOf(request)}:${params.username.toLowerCase()}`;
        await limits?.loginAttempt(username);
        const candidate = await actors
          .ask(realmOf(request), { type: 'realm.loginCandidate', username: params.username, login: true })
          .catch(async (err: unknown) => {
            if (err instanceof ChatError && err.code === 'AUTHENTICATION_FAILED') {
              await verifyPassword(params.password, DECOY_PASSWORD_HASH);
            }
            throw err;
          });
        const ok = await verifyPassword(params.password, candidate.password_hash ?? DECOY_PASSWORD_HASH);
        if (!ok || candidate.password_hash === null) throw wrongLogin();
        await limits?.loginSucceeded(username);
        return { api_key: candidate.api_key, email: candidate.email, user_id: candidate.user_id };
      },
    }),

    defineRoute({
      method: 'POST',
      path: '/dev_fetch_api_key',
      auth: 'none',
      params: Type.Object({ username: Type.String({ description: "The user's e-mail address." }) }),
      summary: 'Fetch an API key (development only)',
      description:
        'In development mode, the API key of any user of a development realm, without a password; starts a browser session too.',
      tags: ['authentication'],
      response: ApiKeyResponse,
      async handler({ params, actors, request, appendHeader }) {
        if (!development) throw new ChatError('BAD_REQUEST', 'Endpoint not available in production.');
        const grant = await actors.ask(realmOf(request), {
          type: 'realm.devApiKey',
          username: params.username,
        });
        // As the original's development server, which logs the browser in too.
        const cookies = await startSession(options, actors, options.realmOf(request), grant.user_id);
        for (const cookie of cookies) appendHeader('Set-Cookie', cookie);
        return { api_key: grant.api_key, email: grant.email, user_id: grant.user_id };
      },
    }),

    defineRoute({
      method: 'GET',
      path: '/users/me',
      auth: 'required',
      params: Type.Object({}),
      summary: 'Get own user',
      description: 'The calling user.',
      tags: ['users'],
      async handler({ principal, actors }) {
        const caller = new CallerContext(actors, principal);
        const [user, maxMessageId] = await Promise.all([
          actors.ask(caller.realm, { type: 'realm.getUser', user_id: principal.user_id }),
          caller.newestMessageId(),
        ]);
        // The reference's own-user object has no bot fields.
        const { bot_type: _type, bot_owner_id: _owner, ...me } = renderUser(user, principal, false);
        return { ...me, max_message_id: maxMessageId };
      },
    }),

    defineRoute({
      method: 'GET',
      path: '/users',
      auth: 'required',
      params: Type.Object({
        client_gravatar: ClientGravatar,
        include_custom_profile_fields: Type.Optional(Type.Boolean({ default: false })),
        user_ids: Type.Optional(Type.Array(Type.Integer(), { description: 'Only these users.' })),
      }),
      summary: 'Get users',
      description: 'Every user of the organization, bots and deactivated users included.',
      tags: ['users'],
      async handler({ params, principal, actors }) {
        const [users, access] = await Promise.all([
          actors.ask(realmAddress(principal.realm), { type: 'realm.listUsers' }),
          accessibleUserIds(new CallerContext(actors, principal)),
        ]);
        const wanted = params.user_ids && new Set(params.user_ids);
        // A restricted guest gets only the users he may access, as the original's (no "Unknown user" here).
        const members = users
          .filter((user) => (!wanted || wanted.has(user.user_id)) && mayAccess(access, user))
          .map((user) =>
            renderUser(user, principal, params.client_gravatar ?? true, params.include_custom_profile_fields),
          );
        return { members };
      },
    }),

    defineRoute({
      method: 'POST',
      path: '/users',
      auth: 'required',
      params: Type.Object({
        email: Type.String({ description: 'The e-mail address of the new user.' }),
        password: Type.String({ description: 'The password of the new user.' }),
        full_name: Type.String({ description: 'The full name of the new user.' }),
      }),
      summary: 'Create a user',
      description:
        'Organization administrators who hold the `can_create_users` permission create a member account with a password.',
      tags: ['users'],
      response: Type.Object({ user_id: Type.Integer() }),
      async handler({ params, principal, actors }) {
        if (!isAdministrator(principal)) {
          // The original's require_realm_admin (OrganizationAdministratorRequiredError).
          throw new ChatError('UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');
        }
        // Then the permission itself, which an operator grants (`change-user-role ... can_create_users`).
        if (!mayCreateUsers(principal)) throw new ChatError('BAD_REQUEST', 'User not authorized to create users');
        const user = await actors.ask(realmAddress(principal.realm), {
          type: 'realm.createUser',
          user: {
            email: params.email,
            full_name: params.full_name,
            role: ROLES.member,
            password_hash: await hashPassword(params.password),
          },
        });
        return { user_id: user.user_id };
      },
    }),

    defineRoute({
      method: 'GET',
      path: '/users/{user_id}',
      auth: 'required',
      params: Type.Object({
        user_id: Type.Integer({ description: "The target user's ID." }),
        client_gravatar: ClientGravatar,
        include_custom_profile_fields: Type.Optional(Type.Boolean({ default: false })),
      }),
      summary: 'Get a user',
      description: 'One user of the organization.',
      tags: ['users'],
      async handler({ params, principal, actors }) {
        const [user, access] = await Promise.all([
          actors.ask(realmAddress(principal.realm), { type: 'realm.getUser', user_id: params.user_id }),
          accessibleUserIds(new CallerContext(actors, principal)),
        ]);
        if (!mayAccess(access, user)) throw insufficientPermission();
        return {
          user: renderUser(user, principal, params.client_gravatar ?? true, params.include_custom_profile_fields),
        };
      },
    }),
  ];
}
