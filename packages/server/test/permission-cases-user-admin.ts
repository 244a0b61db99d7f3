import { authenticated, badRequest, OK, type CallerRole, type Cell, type Operation } from './matrix-model.js';

/**
 * Managing another user (reference update-user, update-user-by-email,
 * update-status-for-user: "Insufficient permission" for anyone who may not,
 * the original's access_user_by_id with for_admin), and reading one by
 * address. The target is prospero, whom the other realm does not hold
 * ("No such user").
 */
const NO_SUCH_USER = badRequest('No such user');
const MANAGERS: Record<CallerRole, Cell> = authenticated({
  everyone: badRequest('Insufficient permission'),
  administrator: OK,
  owner: OK,
  otherRealm: NO_SUCH_USER,
});
const PROSPERO = 14;

export const userAdminCases: Operation[] = [
  {
    method: 'GET',
    template: '/users/{email}',
    request: () => ({ path: '/users/prospero@zulip.com' }),
    expect: authenticated({ everyone: OK, otherRealm: NO_SUCH_USER }),
  },
  {
    method: 'PATCH',
    template: '/users/{email}',
    request: (_fx, caller) => ({ path: '/users/prospero@zulip.com', params: { full_name: `Prospero ${caller.role}` } }),
    expect: MANAGERS,
  },
  {
    method: 'PATCH',
    template: '/users/{user_id}',
    request: (_fx, caller) => ({ path: `/users/${PROSPERO}`, params: { full_name: `Prospero ${caller.role}` } }),
    expect: MANAGERS,
  },
  {
    method: 'POST',
    template: '/users/{user_id}/status',
    request: (_fx, caller) => ({ path: `/users/${PROSPERO}/status`, params: { status_text: `by ${caller.role}` } }),
    expect: MANAGERS,
  },
];
