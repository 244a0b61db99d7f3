import { adminsOnly, authenticated, INVALID_CHANNEL, NOT_ADMIN, OK, refused, type Operation } from './matrix-model.js';

/**
 * Organization settings. PATCH /realm is the original's
 * `require_realm_admin`; a few settings take an owner
 * (OrganizationOwnerRequiredError, "Must be an organization owner"): the
 * row changes one of those, so administrators are refused and owners,
 * this realm's and the other realm's, succeed.
 */
const NOT_OWNER = refused('UNAUTHORIZED_PRINCIPAL', 'Must be an organization owner');

export const orgCases: Operation[] = [
  {
    method: 'PATCH',
    template: '/realm',
    request: () => ({ path: '/realm', params: { waiting_period_threshold: 0 } }),
    expect: authenticated({ everyone: NOT_ADMIN, administrator: NOT_OWNER, owner: OK, otherRealm: OK }),
  },
  {
    // Reference update-realm-user-settings-defaults: administrators.
    method: 'PATCH',
    template: '/realm/user_settings_defaults',
    request: () => ({ path: '/realm/user_settings_defaults', params: { enter_sends: false } }),
    expect: adminsOnly(NOT_ADMIN, OK),
  },
  // Reference add-default-stream and remove-default-stream: administrators; the other realm has no such channel.
  ...(['POST', 'DELETE'] as const).map((method): Operation => ({
    method,
    template: '/default_streams',
    request: async (fx) => ({ path: '/default_streams', params: { stream_id: await fx.channelId('Denmark') } }),
    expect: adminsOnly(NOT_ADMIN, INVALID_CHANNEL),
  })),
];
