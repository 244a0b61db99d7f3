import { expectOk, type Fixtures } from './matrix-fixtures.js';
import {
  AUTH_FAILURES,
  authenticated,
  badRequest,
  NO_BOTS,
  NO_SUCH_USER,
  OK,
  type Caller,
  type Operation,
} from './matrix-model.js';

/**
 * Settings, statuses, presence, typing, event queues and uploads. Changing
 * settings and reporting presence are for humans (the original's
 * `human_users_only`: "This endpoint does not accept bot requests.").
 * Targets are hamlet (10) and iago, whom the other realm does not hold
 * ("No such user", reference get-user-status 400).
 */
const HUMANS = authenticated({ everyone: OK, bot: NO_BOTS });
const ALL = authenticated({ everyone: OK });

/** Registers a queue for the caller (the administrator's for those who cannot: they are refused before it is read). */
async function ownQueue(fx: Fixtures, caller: Caller): Promise<string> {
  const client = caller.signedIn ? caller.client : fx.admin;
  return (await expectOk(client.post<{ queue_id: string }>('/register', { event_types: ['message'] }))).queue_id;
}

/** An attachment othello uploaded: only its owner may delete it (the original's `access_attachment_by_id`). */
async function othellosAttachment(fx: Fixtures): Promise<number> {
  const othello = fx.callers.member.client;
  await expectOk(othello.upload('/user_uploads', [{ name: 'othello.txt', data: Buffer.from('mine') }]));
  const listed = await expectOk(othello.get<{ attachments: Array<{ id: number }> }>('/attachments'));
  return Math.max(...listed.attachments.map((a) => a.id));
}

/** A file othello uploaded and linked in Denmark, where the guest is not (made by the temporary-URL row). */
const linked = { url: '' };

/**
 * The original's serve_file answers a reader who may not see any message
 * linking the file 403 "You are not authorized to view this file.", and 404
 * only when there is no such file: the case of the other realm, which holds
 * none under that path.
 */
const NOT_AUTHORIZED = { status: 403, code: 'FORBIDDEN', msg: 'You are not authorized to view this file.' };
const NO_SUCH_FILE = { status: 404, code: 'NOT_FOUND', msg: 'File not found' };

export const peopleCases: Operation[] = [
  // Spec 3 (the aliases are the same operation).
  {
    method: 'PATCH',
    template: '/settings',
    request: () => ({ path: '/settings', params: { twenty_four_hour_time: true } }),
    expect: HUMANS,
  },
  {
    method: 'PATCH',
    template: '/settings/display',
    request: () => ({ path: '/settings/display', params: { high_contrast_mode: false } }),
    expect: HUMANS,
  },
  {
    method: 'PATCH',
    template: '/settings/notifications',
    request: () => ({ path: '/settings/notifications', params: { enable_sounds: true } }),
    expect: HUMANS,
  },
  {
    // Spec 9: one's own status.
    method: 'POST',
    template: '/users/me/status',
    request: () => ({ path: '/users/me/status', params: { status_text: 'in the matrix' } }),
    expect: ALL,
  },
  {
    // Spec 19: anyone's status; BAD_REQUEST when the user does not exist.
    method: 'GET',
    template: '/users/{user_id}/status',
    request: () => ({ path: '/users/10/status' }),
    expect: authenticated({ everyone: OK, otherRealm: NO_SUCH_USER }),
  },
  {
    method: 'POST',
    template: '/users/me/presence',
    request: () => ({ path: '/users/me/presence', params: { status: 'active' } }),
    expect: HUMANS,
  },
  { method: 'GET', template: '/realm/presence', request: () => ({ path: '/realm/presence' }), expect: ALL },
  {
    method: 'GET',
    template: '/users/{user_id_or_email}/presence',
    prepare: async (fx) => void (await expectOk(fx.admin.post('/users/me/presence', { status: 'active' }))),
    request: () => ({ path: '/users/iago@zulip.com/presence' }),
    expect: authenticated({ everyone: OK, otherRealm: NO_SUCH_USER }),
  },
  {
    // Typing to hamlet, whom the other realm does not hold (the original's "Invalid user ID").
    method: 'POST',
    template: '/typing',
    request: () => ({ path: '/typing', params: { op: 'start', to: [10] } }),
    expect: authenticated({ everyone: OK, otherRealm: badRequest('Invalid user ID 10') }),
  },
  {
    // Spec 21 and Authentication 5: without credentials, a realm with public access answers a spectator's
    // snapshot (the development realm has it); credentials that are present must be valid.
    method: 'POST',
    template: '/register',
    request: () => ({ path: '/register', params: { event_types: ['message'], fetch_event_types: ['realm'] } }),
    expect: { ...ALL, anonymous: OK, wrongKey: AUTH_FAILURES.wrongKey, deactivated: AUTH_FAILURES.deactivated },
  },
  {
    method: 'GET',
    template: '/events',
    request: async (fx, caller) => ({
      path: '/events',
      params: { queue_id: await ownQueue(fx, caller), last_event_id: -1, dont_block: true },
    }),
    expect: ALL,
  },
  {
    method: 'DELETE',
    template: '/events',
    request: async (fx, caller) => ({ path: '/events', params: { queue_id: await ownQueue(fx, caller) } }),
    expect: ALL,
  },
  // Spec 22: any account uploads; the file is then its own.
  { method: 'POST', template: '/user_uploads', request: () => ({ path: '/user_uploads', files: true }), expect: ALL },
  { method: 'GET', template: '/attachments', request: () => ({ path: '/attachments' }), expect: ALL },
  {
    // Only the uploader removes an attachment, administrators included (reference remove-attachment: "Invalid attachment").
    method: 'DELETE',
    template: '/attachments/{attachment_id}',
    request: async (fx) => ({ path: `/attachments/${await othellosAttachment(fx)}` }),
    expect: authenticated({ everyone: badRequest('Invalid attachment'), member: OK }),
  },
  {
    // get-file-temporary-url (answered by the download handler, documented in openapi.json). Readers of a linking message get a URL;
    // the other realm holds no such file (404 in the original too).
    method: 'GET',
    template: '/user_uploads/{realm_id_str}/{filename}',
    prepare: async (fx) => {
      const othello = fx.callers.member.client;
      const file = [{ name: 'shared.txt', data: Buffer.from('shared') }];
      linked.url = (await expectOk(othello.upload<{ url: string }>('/user_uploads', file))).url;
      await fx.send(othello, 'Denmark', `[shared](${linked.url})`);
    },
    request: () => ({ path: linked.url }),
    expect: authenticated({ everyone: OK, guest: NOT_AUTHORIZED, otherRealm: NO_SUCH_FILE }),
  },
];
