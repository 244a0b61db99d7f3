import { adminsOnly, NOT_ADMIN, OK, type Operation } from './matrix-model.js';

/**
 * Data exports: the original's require_realm_admin on all three (reference
 * x-requires-administrator); the other realm's owner exports their own.
 */
export const exportCases: Operation[] = [
  {
    method: 'POST',
    template: '/export/realm',
    request: () => ({ path: '/export/realm', params: { export_type: 1 } }),
    expect: adminsOnly(NOT_ADMIN, OK),
  },
  {
    method: 'GET',
    template: '/export/realm',
    request: () => ({ path: '/export/realm' }),
    expect: adminsOnly(NOT_ADMIN, OK),
  },
  {
    method: 'GET',
    template: '/export/realm/consents',
    request: () => ({ path: '/export/realm/consents' }),
    expect: adminsOnly(NOT_ADMIN, OK),
  },
];
