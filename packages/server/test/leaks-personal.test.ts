import anyTest, { type TestFn } from 'ava';
import { checkEvent, type ChatClient } from '@chat/testkit';
import { expectOk } from './matrix-fixtures.js';
import { notFound } from './not-found.js';
import { eventsUntil, next, register } from './queues.js';
import { TestServer } from './support.js';

/**
 * A person's own data stays theirs: hamlet's drafts, saved snippets,
 * navigation views and push tokens are neither listed, changed nor removed
 * by othello, and their events reach hamlet's queues only. Statuses are
 * everyone's to read, but only with the fields the reference gives them.
 */
const test = anyTest as TestFn<{ server: TestServer; hamlet: ChatClient; othello: ChatClient }>;

test.before(async (t) => {
  const server = await TestServer.start();
  t.context.server = server;
  t.context.hamlet = await server.login('hamlet@zulip.com');
  t.context.othello = await server.login('othello@zulip.com');
});
test.after.always(async (t) => {
  await t.context.server?.stop();
});

// Someone else's draft, snippet or view is answered as a missing one: the reference's 404 (see not-found.ts).
const DRAFT = { type: '', to: [], topic: '', content: 'hamlet alone' };

test("another's drafts are not listed, edited or deleted", async (t) => {
  const { hamlet, othello } = t.context;
  const [id] = (await expectOk(hamlet.post<{ ids: number[] }>('/drafts', { drafts: [DRAFT] }))).ids;
  const listed = async (client: ChatClient) =>
    (await expectOk(client.get<{ drafts: Array<{ id: number }> }>('/drafts'))).drafts.map((d) => d.id);
  t.true((await listed(hamlet)).includes(id!));
  t.false((await listed(othello)).includes(id!));
  const draftPath = `/drafts/${id}`;
  const edit = othello.patch(draftPath, { draft: { ...DRAFT, content: 'othello was here' } });
  await notFound(t, edit, 'Draft does not exist', ['PATCH', draftPath]);
  await notFound(t, othello.delete(draftPath), 'Draft does not exist', ['DELETE', draftPath]);
  const kept = (await expectOk(hamlet.get<{ drafts: Array<{ id: number; content: string }> }>('/drafts'))).drafts;
  t.is(kept.find((d) => d.id === id)?.content, DRAFT.content);
});

test("another's saved snippets are not listed, edited or deleted", async (t) => {
  const { hamlet, othello } = t.context;
  const made = await expectOk(
    hamlet.post<{ saved_snippet_id: number }>('/saved_snippets', { title: 'mine', content: 'x' }),
  );
  const id = made.saved_snippet_id;
  const listed = async (client: ChatClient) =>
    (await expectOk(client.get<{ saved_snippets: Array<{ id: number }> }>('/saved_snippets'))).saved_snippets.map(
      (s) => s.id,
    );
  t.true((await listed(hamlet)).includes(id));
  t.false((await listed(othello)).includes(id));
  const snippetPath = `/saved_snippets/${id}`;
  const gone = 'Saved snippet does not exist.';
  await notFound(t, othello.patch(snippetPath, { title: 'stolen' }), gone, ['PATCH', snippetPath]);
  await notFound(t, othello.delete(snippetPath), gone, ['DELETE', snippetPath]);
  t.true((await listed(hamlet)).includes(id));
});

test("another's navigation views are not listed, edited or removed", async (t) => {
  const { hamlet, othello } = t.context;
  const fragment = 'narrow/channel/3-Verona/topic/hamlets';
  await expectOk(hamlet.post('/navigation_views', { fragment, is_pinned: true, name: 'Hamlet only' }));
  const views = async (client: ChatClient) =>
    (await expectOk(client.get<{ navigation_views: Array<{ fragment: string }> }>('/navigation_views')))
      .navigation_views;
  t.true((await views(hamlet)).some((v) => v.fragment === fragment));
  t.false((await views(othello)).some((v) => v.fragment === fragment));
  const path = `/navigation_views/${encodeURIComponent(fragment)}`;
  const gone = 'Navigation view does not exist.';
  await notFound(t, othello.patch(path, { is_pinned: false }), gone, ['PATCH', path], 'NOT_FOUND');
  await notFound(t, othello.delete(path), gone, ['DELETE', path]);
  t.true((await views(hamlet)).some((v) => v.fragment === fragment));
});

test("another's push tokens cannot be removed or tested", async (t) => {
  const { hamlet, othello } = t.context;
  const apns = { token: 'feedbeef0123', appid: 'org.zulip.Zulip' };
  await expectOk(hamlet.post('/users/me/apns_device_token', apns));
  await expectOk(hamlet.post('/users/me/android_gcm_reg_id', { token: 'hamlet-android' }));
  const gone = { status: 400, body: { code: 'BAD_REQUEST', msg: 'Token does not exist' } };
  t.like(await othello.delete('/users/me/apns_device_token', { token: apns.token }), gone);
  t.like(await othello.delete('/users/me/android_gcm_reg_id', { token: 'hamlet-android' }), gone);
  // Spec 17: a token that is not the caller's is not recognized for them.
  t.like(await othello.post('/mobile_push/test_notification', { token: apns.token }), {
    status: 400,
    body: { code: 'INVALID_PUSH_DEVICE_TOKEN' },
  });
  // Both are still hamlet's: he can remove them.
  t.is((await hamlet.delete('/users/me/apns_device_token', { token: apns.token })).status, 200);
  t.is((await hamlet.delete('/users/me/android_gcm_reg_id', { token: 'hamlet-android' })).status, 200);
});

test('personal data events reach only their owner’s queues', async (t) => {
  const { hamlet, othello } = t.context;
  const own = await register(hamlet, { event_types: ['drafts', 'saved_snippets', 'navigation_view'] });
  const other = await register(othello, {
    event_types: ['drafts', 'saved_snippets', 'navigation_view', 'user_settings'],
  });
  await expectOk(hamlet.post('/drafts', { drafts: [{ ...DRAFT, content: 'event draft' }] }));
  await expectOk(hamlet.post('/saved_snippets', { title: 'event snippet', content: 'x' }));
  await next(own, (e) => e.type === 'drafts');
  await next(own, (e) => e.type === 'saved_snippets');
  // othello's own change comes after hamlet's events were handed out; by then they would be in his queue.
  await expectOk(othello.patch('/settings', { twenty_four_hour_time: true }));
  const seen = await eventsUntil(other, (e) => e.type === 'user_settings');
  t.deepEqual(
    seen.filter((e) => e.type !== 'user_settings' && e.type !== 'heartbeat'),
    [],
  );
});

/** The fields of a user status (spec, Resources: "User status"); nothing else of the user's. */
const STATUS_FIELDS = ['away', 'emoji_code', 'emoji_name', 'reaction_type', 'status_text'];

test("others' statuses show the status fields and nothing more", async (t) => {
  const { hamlet, othello } = t.context;
  const queue = await register(othello, { event_types: ['user_status'] });
  await expectOk(hamlet.post('/users/me/status', { status_text: 'in a meeting', emoji_name: 'calendar', away: true }));
  const read = await expectOk(othello.get<{ status: Record<string, unknown> }>('/users/10/status'));
  t.like(read.status, { status_text: 'in a meeting', emoji_name: 'calendar', reaction_type: 'unicode_emoji' });
  t.deepEqual(
    Object.keys(read.status).filter((k) => !STATUS_FIELDS.includes(k)),
    [],
  );
  // Someone who set none has an empty status.
  t.deepEqual((await expectOk(othello.get<{ status: object }>('/users/8/status'))).status, {});
  const event = await next(queue, (e) => e.type === 'user_status' && e.user_id === 10);
  t.deepEqual(checkEvent(event).errors, []);
  t.deepEqual(
    Object.keys(event).filter((k) => ![...STATUS_FIELDS, 'type', 'id', 'user_id'].includes(k)),
    [],
  );
  const { snapshot } = await register(othello, { fetch_event_types: ['user_status'] });
  const his = (snapshot.user_status as Record<string, Record<string, unknown>>)['10']!;
  t.deepEqual(
    Object.keys(his).filter((k) => !STATUS_FIELDS.includes(k)),
    [],
  );
  t.like(his, { status_text: 'in a meeting' });
});
