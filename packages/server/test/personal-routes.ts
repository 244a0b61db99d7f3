import type { ChatClient, Params } from '@chat/testkit';

/**
 * The route ladder's cases (routes.test.ts) for a person's own data:
 * drafts, saved snippets, navigation views and push registration. What the
 * edit and delete cases change is made by `preparePersonalCases` first.
 */
interface LadderCase {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  at?: () => string;
  template?: string;
  auth: boolean;
  valid: Params;
  bad: { path?: string; params: Params; name: string; code?: string };
}

const made = { editedDraft: 0, doomedDraft: 0, editedSnippet: 0, doomedSnippet: 0 };
const missing = (name: string, params: Params = {}) => ({ params, name, code: 'REQUEST_VARIABLE_MISSING' });
const draft = JSON.stringify({ type: '', to: [], topic: '', content: 'ladder' });

export async function preparePersonalCases(client: ChatClient): Promise<void> {
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

export function personalCases(): LadderCase[] {
  const none = { params: {}, name: '' };
  return [
    { method: 'GET', path: '/drafts', auth: true, valid: {}, bad: none },
    {
      method: 'POST',
      path: '/drafts',
      auth: true,
      valid: { drafts: '[]' },
      bad: { params: { drafts: '[{' }, name: 'drafts' },
    },
    {
      method: 'PATCH',
      path: '/drafts/{draft_id}',
      at: () => `/drafts/${made.editedDraft}`,
      template: '/drafts/{draft_id}',
      auth: true,
      valid: { draft },
      bad: { path: '/drafts/x', params: { draft }, name: 'draft_id' },
    },
    {
      method: 'DELETE',
      path: '/drafts/{draft_id}',
      at: () => `/drafts/${made.doomedDraft}`,
      template: '/drafts/{draft_id}',
      auth: true,
      valid: {},
      bad: { path: '/drafts/x', params: {}, name: 'draft_id' },
    },
    { method: 'GET', path: '/saved_snippets', auth: true, valid: {}, bad: none },
    {
      method: 'POST',
      path: '/saved_snippets',
      auth: true,
      valid: { title: 'ladder', content: 'ladder' },
      bad: missing('title', { content: 'ladder' }),
    },
    {
      method: 'PATCH',
      path: '/saved_snippets/{saved_snippet_id}',
      at: () => `/saved_snippets/${made.editedSnippet}`,
      template: '/saved_snippets/{saved_snippet_id}',
      auth: true,
      valid: { title: 'ladder edited' },
      bad: { path: '/saved_snippets/x', params: {}, name: 'saved_snippet_id' },
    },
    {
      method: 'DELETE',
      path: '/saved_snippets/{saved_snippet_id}',
      at: () => `/saved_snippets/${made.doomedSnippet}`,
      template: '/saved_snippets/{saved_snippet_id}',
      auth: true,
      valid: {},
      bad: { path: '/saved_snippets/x', params: {}, name: 'saved_snippet_id' },
    },
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
      valid: { token: 'c0ffee', appid: 'org.zulip.Zulip' },
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
  ];
}
