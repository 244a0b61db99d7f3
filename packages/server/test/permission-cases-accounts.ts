import { expectOk, PASSWORD } from './matrix-fixtures.js';
import {
  adminsOnly,
  authenticated,
  CALLER_ROLES,
  NO_SUCH_USER,
  NOT_ADMIN,
  OK,
  badRequest,
  type Cell,
  type CallerRole,
  type Operation,
} from './matrix-model.js';

/** The same answer for every caller: operations that take no credentials. */
const forAll = (cell: Cell, except: Partial<Record<CallerRole, Cell>> = {}) =>
  Object.fromEntries(CALLER_ROLES.map((role) => [role, except[role] ?? cell])) as Record<CallerRole, Cell>;

/**
 * A wrong password, or an account the realm of the request does not hold:
 * the original's AuthenticationFailedError (401). The spec leaves the
 * failure of POST /fetch_api_key "not shown" (Authentication 7).
 */
const AUTHENTICATION_FAILED = { status: 401, code: 'AUTHENTICATION_FAILED' };

/**
 * POST /users needs, besides administrator rights, the `can_create_users`
 * permission, which an operator grants (create-user: "Before Zulip 4.0
 * (feature level 36), this endpoint was available to all organization
 * administrators"). The development realm's administrator iago holds it, as
 * the original's API tests grant it to him; the owners here do not, so they
 * are refused ("User not authorized to create users").
 */
const CREATE_USERS = badRequest('User not authorized to create users');

/**
 * Deactivating and reactivating take administrative access to the target
 * (x-requires-administrator); the original checks it in
 * `access_user_by_id(for_admin=True)`: "Insufficient permission".
 */
const ADMIN_USER = badRequest('Insufficient permission');

export const accountCases: Operation[] = [
  // "This endpoint does not require any authentication at all" (reference, get-server-settings): credentials are not read.
  { method: 'GET', template: '/server_settings', request: () => ({ path: '/server_settings' }), expect: forAll(OK) },
  {
    // No prior authentication (spec 7, security: [] in the reference): the caller's own credentials do not matter,
    // the username and password do; the other realm holds no such account.
    method: 'POST',
    template: '/fetch_api_key',
    request: (fx) => ({ path: '/fetch_api_key', params: { username: fx.withPassword.email, password: PASSWORD } }),
    expect: forAll(OK, { otherRealm: AUTHENTICATION_FAILED }),
  },
  {
    // The development login (reference, dev-fetch-api-key): each caller asks for its own account's key, without
    // credentials; a deactivated account is UserDeactivatedError as in the original.
    method: 'POST',
    template: '/dev_fetch_api_key',
    request: (_fx, caller) => ({
      path: '/dev_fetch_api_key',
      params: { username: caller.email ?? 'iago@zulip.com' },
    }),
    // The other realm is a production organization (created as the create-realm command does), whose
    // authentication methods do not include the development backend: the original's check_dev_auth_backend.
    expect: forAll(OK, {
      deactivated: { status: 401, code: 'USER_DEACTIVATED', msg: 'Account is deactivated' },
      otherRealm: badRequest('DevAuthBackend not enabled.'),
    }),
  },
  {
    method: 'GET',
    template: '/users/me',
    request: () => ({ path: '/users/me' }),
    expect: authenticated({ everyone: OK }),
  },
  {
    // Bots may regenerate their own key too (the original leaves it out of human_users_only on purpose). Each
    // caller then goes on with its new key.
    method: 'POST',
    template: '/users/me/api_key/regenerate',
    request: () => ({ path: '/users/me/api_key/regenerate' }),
    after: (_fx, caller, reply) => {
      if (reply.status !== 200) return;
      caller.client = caller.client.as({ email: caller.email!, apiKey: String(reply.body.api_key) });
    },
    expect: authenticated({ everyone: OK }),
  },
  // Every account may list the users it can access (get-users); guests too, with can_access_all_users_group at its default.
  { method: 'GET', template: '/users', request: () => ({ path: '/users' }), expect: authenticated({ everyone: OK }) },
  {
    // x-requires-administrator (create-user): others get the original's OrganizationAdministratorRequiredError.
    method: 'POST',
    template: '/users',
    request: (fx, caller) => ({
      path: '/users',
      params: {
        email: `${fx.unique(`new-${caller.role}`).replace(' ', '-')}@zulip.com`,
        password: 'pw',
        full_name: 'New',
      },
    }),
    expect: authenticated({ everyone: NOT_ADMIN, administrator: OK, owner: CREATE_USERS, otherRealm: CREATE_USERS }),
  },
  {
    // get-user: any user the caller can access; an id this realm does not hold is "No such user".
    method: 'GET',
    template: '/users/{user_id}',
    request: () => ({ path: '/users/10' }),
    expect: authenticated({ everyone: OK, otherRealm: NO_SUCH_USER }),
  },
  {
    // x-requires-administrator (deactivate-user); the other realm's owner passes that check and then finds no such user.
    method: 'DELETE',
    template: '/users/{user_id}',
    request: async (fx) => ({ path: `/users/${(await fx.account('doomed')).userId}` }),
    expect: adminsOnly(ADMIN_USER, NO_SUCH_USER),
  },
  {
    // x-requires-administrator (reactivate-user).
    method: 'POST',
    template: '/users/{user_id}/reactivate',
    request: async (fx) => {
      const { userId } = await fx.account('returner');
      await expectOk(fx.admin.delete(`/users/${userId}`));
      return { path: `/users/${userId}/reactivate` };
    },
    expect: adminsOnly(ADMIN_USER, NO_SUCH_USER),
  },
];
