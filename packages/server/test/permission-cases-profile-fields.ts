import { expectOk, type Fixtures } from './matrix-fixtures.js';
import { adminsOnly, authenticated, badRequest, NOT_ADMIN, OK, type Operation } from './matrix-model.js';

/** A short-text field the administrator added. */
async function field(fx: Fixtures): Promise<number> {
  const params = { name: fx.unique('f').slice(0, 40), field_type: 1 };
  return (await expectOk(fx.admin.post<{ id: number }>('/realm/profile_fields', params))).id;
}

const shared = { field: 0 };

/**
 * Custom profile fields: everyone reads them, administrators define them
 * (reference get-, create-, reorder-custom-profile-fields; changing and
 * deleting one is the original's too, not in the reference); everyone sets
 * their own values. The other realm has none of this realm's fields.
 */
export const profileFieldCases: Operation[] = [
  {
    method: 'GET',
    template: '/realm/profile_fields',
    request: () => ({ path: '/realm/profile_fields' }),
    expect: authenticated({ everyone: OK }),
  },
  {
    method: 'POST',
    template: '/realm/profile_fields',
    request: (fx) => ({ path: '/realm/profile_fields', params: { name: fx.unique('m').slice(0, 40), field_type: 1 } }),
    expect: adminsOnly(NOT_ADMIN, OK),
  },
  {
    method: 'PATCH',
    template: '/realm/profile_fields',
    prepare: async (fx) => void (await field(fx)),
    request: async (fx) => {
      const { custom_fields } = await expectOk(
        fx.admin.get<{ custom_fields: { id: number }[] }>('/realm/profile_fields'),
      );
      return {
        path: '/realm/profile_fields',
        params: { order: JSON.stringify(custom_fields.map((f) => f.id).reverse()) },
      };
    },
    expect: adminsOnly(NOT_ADMIN, badRequest('Invalid order mapping.')),
  },
  ...(['PATCH', 'DELETE'] as const).map((method): Operation => ({
    method,
    template: '/realm/profile_fields/{field_id}',
    request: async (fx) => ({
      path: `/realm/profile_fields/${await field(fx)}`,
      params: method === 'PATCH' ? { hint: 'h' } : {},
    }),
    // The other realm has no such field ('Field id N not found.').
    expect: adminsOnly(NOT_ADMIN, badRequest()),
  })),
  {
    method: 'PATCH',
    template: '/users/me/profile_data',
    prepare: async (fx) => void (shared.field = await field(fx)),
    request: () => ({
      path: '/users/me/profile_data',
      params: { data: JSON.stringify([{ id: shared.field, value: 'v' }]) },
    }),
    expect: authenticated({ everyone: OK, otherRealm: badRequest() }),
  },
  {
    method: 'DELETE',
    template: '/users/me/profile_data',
    prepare: async (fx) => void (shared.field = await field(fx)),
    request: () => ({ path: '/users/me/profile_data', params: { data: JSON.stringify([shared.field]) } }),
    expect: authenticated({ everyone: OK, otherRealm: badRequest() }),
  },
];
