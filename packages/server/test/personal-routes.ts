import type { ChatClient } from '@chat/testkit';
import { missing, NOTHING_BAD as none, onMade, type LadderCase, type LadderSection } from './ladder.js';

/**
 * The route ladder's cases (routes.test.ts) for a person's own data:
 * drafts, saved snippets, navigation views and push registration. What the
 * edit and delete cases change is made by `prepare` first.
 */
const made = { editedDraft: 0, doomedDraft: 0, editedSnippet: 0, doomedSnippet: 0 };
const draft = JSON.stringify({ type: '', to: [], topic: '', content: 'ladder' });

async function prepare(client: ChatClient): Promise<void> {
  const drafts = await client.post<{ ids: number[] }>('/drafts', { drafts: `[${draft}, ${draft}]` });
  [made.editedDraft, made.doomedDraft] = drafts.body.ids as [number, number];
  for (const key of ['editedSnippet', 'doomedSnippet'] as const) {
    const snippet = await client.post<{ saved_snippet_id: number }>('/saved_snippets', { title: key, content: key });
    made[key] = snippet.body.saved_snippet_id;
  }
  for (const fragment of ['inbox', 'recent']) await client.post('/navigation_views', { fragment, is_pinned: true });
  await client.post('/users/me/apns_device_token', { token: 'ba5eba11', appid: 'org.zulip.Zulip' });
  await client.post('/users/me/android_gcm_reg_id', { token: 'ladder-android-doomed' });
}

function cases(): LadderCase[] {
  return [
    { method: 'GET', path: '/drafts', auth: true, valid: {}, bad: none },
    {
      method: 'POST',
      path: '/drafts',
      auth: true,
      valid: { drafts: '[]' },
      bad: { params: { drafts: '[{' }, name: 'drafts' },
    },
    onMade(
      'PATCH',
      '/drafts/{draft_id}',
      () => `/drafts/${made.editedDraft}`,
      { draft },
      { path: '/drafts/x', params: { draft }, name: 'draft_id' },
    ),
    onMade(
      'DELETE',
      '/drafts/{draft_id}',
      () => `/drafts/${made.doomedDraft}`,
      {},
      { path: '/drafts/x', params: {}, name: 'draft_id' },
    ),
    { method: 'GET', path: '/saved_snippets', auth: true, valid: {}, bad: none },
    {
      method: 'POST',
      path: '/saved_snippets',
      auth: true,
      valid: { title: 'ladder', content: 'ladder' },
      bad: missing('title', { content: 'ladder' }),
    },
    onMade(
      'PATCH',
      '/saved_snippets/{saved_snippet_id}',
      () => `/saved_snippets/${made.editedSnippet}`,
      { title: 'ladder edited' },
      { path: '/saved_snippets/x', params: {}, name: 'saved_snippet_id' },
    ),
    onMade(
      'DELETE',
      '/saved_snippets/{saved_snippet_id}',
      () => `/saved_snippets/${made.doomedSnippet}`,
      {},
      { path: '/saved_snippets/x', params: {}, name: 'saved_snippet_id' },
    ),
    { method: 'GET', path: '/navigation_views', auth: true, valid: {}, bad: none },
    {
      method: 'POST',
      path: '/navigation_views',
      auth: true,
      valid: { fragment: 'narrow/is/ladder', is_pinned: true, name: 'Ladder' },
      bad: { params: { fragment: 'feed', is_pinned: 'maybe' }, name: 'is_pinned' },
    },
    {
      method: 'PATCH',
      path: '/navigation_views/inbox',
      template: '/navigation_views/{fragment}',
      auth: true,
      valid: { is_pinned: false },
      bad: { params: { is_pinned: 'perhaps' }, name: 'is_pinned' },
    },
    {
      method: 'DELETE',
      path: '/navigation_views/recent',
      template: '/navigation_views/{fragment}',
      auth: true,
      valid: {},
      bad: none,
    },
    {
      method: 'POST',
      path: '/users/me/apns_device_token',
      auth: true,
      valid: { token: 'c0ffee00', appid: 'org.zulip.Zulip' },
      bad: missing('appid', { token: 'c0ffee' }),
    },
    {
      method: 'DELETE',
      path: '/users/me/apns_device_token',
      auth: true,
      valid: { token: 'ba5eba11' },
      bad: missing('token'),
    },
    {
      method: 'POST',
      path: '/users/me/android_gcm_reg_id',
      auth: true,
      valid: { token: 'ladder-android' },
      bad: missing('token'),
    },
    {
      method: 'DELETE',
      path: '/users/me/android_gcm_reg_id',
      auth: true,
      valid: { token: 'ladder-android-doomed' },
      bad: missing('token'),
    },
    // Its valid form answers PUSH_SERVICE_NOT_CONFIGURED: the ladder's server has no push bouncer.
    {
      method: 'POST',
      path: '/mobile_push/test_notification',
      auth: true,
      valid: {},
      bad: none,
    },
    {
      method: 'POST',
      path: '/mobile_push/register',
      auth: true,
      valid: {
        token_kind: 'apns',
        push_account_id: 7,
        push_public_key: Buffer.alloc(32).toString('base64'),
        bouncer_public_key: 'k',
        encrypted_push_registration: 'AAAA',
      },
      bad: { params: { token_kind: 'pager', push_account_id: 7 }, name: 'token_kind' },
    },
    {
      method: 'POST',
      path: '/mobile_push/e2ee/test_notification',
      auth: true,
      valid: {},
      bad: { params: { push_account_id: 'seven' }, name: 'push_account_id' },
    },
  ];
}

export const personalLadder: LadderSection = { prepare, cases: cases() };
