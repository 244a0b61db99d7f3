import { expectOk, type Fixtures } from './matrix-fixtures.js';
import {
  adminsOnly,
  authenticated,
  badRequest,
  INVALID_CHANNEL,
  NOT_ADMIN,
  OK,
  refused,
  type Operation,
} from './matrix-model.js';

/** A playground the administrator added, for one caller to remove. */
async function playground(fx: Fixtures): Promise<number> {
  const params = {
    name: fx.unique('doomed playground'),
    pygments_language: 'Rust',
    url_template: 'https://r.example/{code}',
  };
  return (await expectOk(fx.admin.post<{ id: number }>('/realm/playgrounds', params))).id;
}

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
  {
    // Reference add-code-playground: administrators; each caller adds its own.
    method: 'POST',
    template: '/realm/playgrounds',
    request: (fx) => ({
      path: '/realm/playgrounds',
      params: {
        name: fx.unique('matrix playground'),
        pygments_language: 'Python',
        url_template: 'https://p.example/{code}',
      },
    }),
    expect: adminsOnly(NOT_ADMIN, OK),
  },
  {
    // Reference remove-code-playground: administrators; the other realm has no such playground.
    method: 'DELETE',
    template: '/realm/playgrounds/{playground_id}',
    request: async (fx) => ({ path: `/realm/playgrounds/${await playground(fx)}` }),
    expect: adminsOnly(NOT_ADMIN, badRequest('Invalid playground')),
  },
  // Reference add-default-stream and remove-default-stream: administrators; the other realm has no such channel.
  ...(['POST', 'DELETE'] as const).map((method): Operation => ({
    method,
    template: '/default_streams',
    request: async (fx) => ({ path: '/default_streams', params: { stream_id: await fx.channelId('Denmark') } }),
    expect: adminsOnly(NOT_ADMIN, INVALID_CHANNEL),
  })),
];
