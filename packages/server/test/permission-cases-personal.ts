import type { Fixtures } from './matrix-fixtures.js';
import { authenticated, CALLER_ROLES, NO_BOTS, OK, refused, type Caller, type Operation } from './matrix-model.js';

/**
 * A person's own data: drafts, saved snippets, navigation views and push
 * registration. Each caller works on its own (made first when the row
 * edits or removes one), so every account may; the other realm's owner
 * too, in its own realm. Reaching another's is leaks-personal.test.ts's part.
 * Push registration is for humans only: the original's
 * `human_users_only` answers bots "This endpoint does not accept bot
 * requests."
 */
const DRAFT = { type: '', to: [], topic: '', content: 'matrix' };
/** An id to put in a path for callers who cannot make anything: they are refused before it is read. */
const NONE = 1;

async function ownDraft(caller: Caller): Promise<number> {
  if (!caller.signedIn) return NONE;
  const made = await caller.client.post<{ ids: number[] }>('/drafts', { drafts: [DRAFT] });
  return made.body.ids[0]!;
}

async function ownSnippet(caller: Caller): Promise<number> {
  if (!caller.signedIn) return NONE;
  const made = await caller.client.post<{ saved_snippet_id: number }>('/saved_snippets', {
    title: 'matrix',
    content: 'matrix',
  });
  return made.body.saved_snippet_id;
}

/** Registers a push token for a human caller, so that removing it is that caller's own business. */
async function ownToken(caller: Caller, kind: 'apns_device_token' | 'android_gcm_reg_id', token: string) {
  const params = kind === 'apns_device_token' ? { token, appid: 'org.zulip.Zulip' } : { token };
  if (caller.signedIn && caller.role !== 'bot') await caller.client.post(`/users/me/${kind}`, params);
  return { path: `/users/me/${kind}`, params: { token } };
}

/** A token of each caller's own (APNs tokens are hex, whole groups of four characters as the original decodes them). */
const tokenOf = (caller: Caller, hex: boolean) =>
  hex ? `ba5eba${CALLER_ROLES.indexOf(caller.role).toString(16).padStart(2, '0')}` : `matrix-${caller.role}`;

const ALL = authenticated({ everyone: OK });
const HUMANS = authenticated({ everyone: OK, bot: NO_BOTS });

export const personalCases: Operation[] = [
  { method: 'GET', template: '/drafts', request: () => ({ path: '/drafts' }), expect: ALL },
  {
    method: 'POST',
    template: '/drafts',
    request: () => ({ path: '/drafts', params: { drafts: [DRAFT] } }),
    expect: ALL,
  },
  {
    method: 'PATCH',
    template: '/drafts/{draft_id}',
    request: async (_fx, caller) => ({ path: `/drafts/${await ownDraft(caller)}`, params: { draft: DRAFT } }),
    expect: ALL,
  },
  {
    method: 'DELETE',
    template: '/drafts/{draft_id}',
    request: async (_fx, caller) => ({ path: `/drafts/${await ownDraft(caller)}` }),
    expect: ALL,
  },
  { method: 'GET', template: '/saved_snippets', request: () => ({ path: '/saved_snippets' }), expect: ALL },
  {
    method: 'POST',
    template: '/saved_snippets',
    request: () => ({ path: '/saved_snippets', params: { title: 'matrix', content: 'matrix' } }),
    expect: ALL,
  },
  {
    method: 'PATCH',
    template: '/saved_snippets/{saved_snippet_id}',
    request: async (_fx, caller) => ({ path: `/saved_snippets/${await ownSnippet(caller)}`, params: { title: 'x' } }),
    expect: ALL,
  },
  {
    method: 'DELETE',
    template: '/saved_snippets/{saved_snippet_id}',
    request: async (_fx, caller) => ({ path: `/saved_snippets/${await ownSnippet(caller)}` }),
    expect: ALL,
  },
  { method: 'GET', template: '/navigation_views', request: () => ({ path: '/navigation_views' }), expect: ALL },
  {
    method: 'POST',
    template: '/navigation_views',
    request: (fx: Fixtures) => {
      const name = fx.unique('matrix view');
      return { path: '/navigation_views', params: { fragment: `narrow/${name}`, is_pinned: true, name } };
    },
    expect: ALL,
  },
  {
    // A built-in view ("inbox"), configured first by the caller itself.
    method: 'PATCH',
    template: '/navigation_views/{fragment}',
    request: async (_fx, caller) => {
      if (caller.signedIn) await caller.client.post('/navigation_views', { fragment: 'inbox', is_pinned: true });
      return { path: '/navigation_views/inbox', params: { is_pinned: false } };
    },
    expect: ALL,
  },
  {
    method: 'DELETE',
    template: '/navigation_views/{fragment}',
    request: async (_fx, caller) => {
      if (caller.signedIn) await caller.client.post('/navigation_views', { fragment: 'recent', is_pinned: true });
      return { path: '/navigation_views/recent' };
    },
    expect: ALL,
  },
  {
    // Spec 14.
    method: 'POST',
    template: '/users/me/apns_device_token',
    request: (_fx, caller) => ({
      path: '/users/me/apns_device_token',
      params: { token: tokenOf(caller, true), appid: 'org.zulip.Zulip' },
    }),
    expect: HUMANS,
  },
  {
    method: 'DELETE',
    template: '/users/me/apns_device_token',
    request: (_fx, caller) => ownToken(caller, 'apns_device_token', `${tokenOf(caller, true)}ffff`),
    expect: HUMANS,
  },
  {
    method: 'POST',
    template: '/users/me/android_gcm_reg_id',
    request: (_fx, caller) => ({ path: '/users/me/android_gcm_reg_id', params: { token: tokenOf(caller, false) } }),
    expect: HUMANS,
  },
  {
    // Spec 15.
    method: 'DELETE',
    template: '/users/me/android_gcm_reg_id',
    request: (_fx, caller) => ownToken(caller, 'android_gcm_reg_id', `${tokenOf(caller, false)}-doomed`),
    expect: HUMANS,
  },
  {
    // Spec 17: a token the server does not know is INVALID_PUSH_DEVICE_TOKEN ("Device not recognized", reference
    // test-notify), whoever asks and whether or not a push bouncer is configured.
    method: 'POST',
    template: '/mobile_push/test_notification',
    request: () => ({ path: '/mobile_push/test_notification', params: { token: 'matrix-unknown-token' } }),
    expect: authenticated({
      everyone: refused('INVALID_PUSH_DEVICE_TOKEN', 'Device not recognized'),
      bot: NO_BOTS,
    }),
  },
  // Reference register-push-device and e2ee-test-notify: people only; the matrix's server has no push bouncer,
  // which the original refuses before anything else (e2ee-push.test.ts runs one).
  ...['/mobile_push/register', '/mobile_push/e2ee/test_notification'].map((path): Operation => ({
    method: 'POST',
    template: path,
    request: () => ({
      path,
      params: {
        token_kind: 'fcm',
        push_account_id: 1,
        push_public_key: Buffer.alloc(32).toString('base64'),
        bouncer_public_key: 'k',
        encrypted_push_registration: 'AAAA',
      },
    }),
    expect: authenticated({
      everyone: refused('PUSH_SERVICE_NOT_CONFIGURED', 'Server is not configured to use push notification service.'),
      bot: NO_BOTS,
    }),
  })),
];
