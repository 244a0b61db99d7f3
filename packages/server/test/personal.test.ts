import type { ChatClient } from '@chat/testkit';
import { withServer } from './context.js';
import { held, next, of, register, type Body } from './queues.js';
import { notFound } from './not-found.js';
import { refused, succeeds } from './replies.js';

/**
 * Saved snippets and navigation views: a person's own data on their
 * UserActor, changed through the API and synchronized to their clients by
 * `saved_snippets` and `navigation_view` events. Each test is a user of its own.
 */
const test = withServer([], { heartbeatMs: 1000 });

interface Snippet {
  id: number;
  title: string;
  content: string;
  date_created: number;
}
interface View {
  fragment: string;
  is_pinned: boolean;
  name: string | null;
}

const snippets = async (client: ChatClient) =>
  (await succeeds<{ saved_snippets: Snippet[] }>('GET', '/saved_snippets', client.get('/saved_snippets')))
    .saved_snippets;
const views = async (client: ChatClient) =>
  (await succeeds<{ navigation_views: View[] }>('GET', '/navigation_views', client.get('/navigation_views')))
    .navigation_views;
/** Fragments hold slashes: they travel encoded in the path. */
const viewPath = (fragment: string) => `/navigation_views/${encodeURIComponent(fragment)}`;

test('saved snippets: create, edit and delete, read back and heard as saved_snippets events', async (t) => {
  const hamlet = await t.context.server.login('hamlet@zulip.com');
  const queue = await register(hamlet, { event_types: ['saved_snippets'] });
  const before = Math.floor(Date.now() / 1000);
  const { saved_snippet_id: id } = await succeeds<{ saved_snippet_id: number }>(
    'POST',
    '/saved_snippets',
    hamlet.post('/saved_snippets', { title: '  Welcome ', content: ' Welcome to the team! \n' }),
  );
  const added = (await next(queue, of('saved_snippets', 'add'))).saved_snippet as Snippet;
  t.like(added, { id, title: 'Welcome', content: 'Welcome to the team!' });
  t.true(added.date_created >= before && added.date_created <= Math.ceil(Date.now() / 1000));
  t.deepEqual(await snippets(hamlet), [added]);

  await succeeds(
    'PATCH',
    `/saved_snippets/${id}`,
    hamlet.patch(`/saved_snippets/${id}`, { content: 'Welcome aboard!' }),
  );
  const updated = await next(queue, of('saved_snippets', 'update'));
  t.deepEqual(updated.saved_snippet, { ...added, content: 'Welcome aboard!' });
  t.deepEqual(await snippets(hamlet), [{ ...added, content: 'Welcome aboard!' }]);

  await succeeds('DELETE', `/saved_snippets/${id}`, hamlet.delete(`/saved_snippets/${id}`));
  const removed = await next(queue, of('saved_snippets', 'remove'));
  t.is(removed.saved_snippet_id, id);
  t.deepEqual(await snippets(hamlet), []);
});

test('saved snippets: blank or long fields and unknown ids are refused', async (t) => {
  const othello = await t.context.server.login('othello@zulip.com');
  const iago = await t.context.server.login('iago@zulip.com');
  const post = (params: Body) => othello.post<Body>('/saved_snippets', params);
  const reference: [string, string] = ['POST', '/saved_snippets'];
  await refused(t, post({ title: ' ', content: 'x' }), 'title cannot be blank', reference);
  await refused(t, post({ title: 'x', content: '\n' }), 'content cannot be blank', reference);
  await refused(
    t,
    post({ title: 'x'.repeat(61), content: 'x' }),
    'title is too long (limit: 60 characters)',
    reference,
  );
  await refused(t, post({ title: 'x', content: 'x'.repeat(10_001) }), 'content is too long (limit: 10000 characters)');
  t.deepEqual(await snippets(othello), []);
  // Somebody else's snippet is as unknown as one that never existed.
  const { saved_snippet_id: id } = await succeeds<{ saved_snippet_id: number }>(
    'POST',
    '/saved_snippets',
    iago.post('/saved_snippets', { title: 'mine', content: 'mine' }),
  );
  for (const target of [id, 999_999]) {
    const path = `/saved_snippets/${target}`;
    await notFound(t, othello.patch(path, { title: 'taken' }), 'Saved snippet does not exist.', ['PATCH', path]);
    await notFound(t, othello.delete(path), 'Saved snippet does not exist.', ['DELETE', path]);
  }
  t.like((await snippets(iago))[0], { id, title: 'mine' });
});

test('navigation views: a built-in view setting and a custom view, edited and removed, heard as events', async (t) => {
  const cordelia = await t.context.server.login('cordelia@zulip.com');
  const queue = await register(cordelia, { event_types: ['navigation_view'] });
  await succeeds(
    'POST',
    '/navigation_views',
    cordelia.post('/navigation_views', { fragment: 'inbox', is_pinned: false }),
  );
  const builtIn = await next(queue, of('navigation_view', 'add'));
  t.deepEqual(builtIn.navigation_view, { fragment: 'inbox', is_pinned: false, name: null });
  const custom = { fragment: 'narrow/is/alerted', is_pinned: true, name: 'Alert words' };
  await succeeds('POST', '/navigation_views', cordelia.post('/navigation_views', custom));
  await next(
    queue,
    of('navigation_view', 'add', (e) => (e.navigation_view as View).fragment === custom.fragment),
  );
  t.deepEqual(await views(cordelia), [{ fragment: 'inbox', is_pinned: false, name: null }, custom]);

  const path = viewPath(custom.fragment);
  await succeeds('PATCH', path, cordelia.patch(path, { name: 'Watched phrases', is_pinned: false }));
  const update = await next(queue, of('navigation_view', 'update'));
  t.like(update, { fragment: custom.fragment, data: { name: 'Watched phrases', is_pinned: false } });
  await succeeds('PATCH', viewPath('inbox'), cordelia.patch(viewPath('inbox'), { is_pinned: true }));
  const pinned = await next(
    queue,
    of('navigation_view', 'update', (e) => e.fragment === 'inbox'),
  );
  t.deepEqual(pinned.data, { is_pinned: true });
  t.deepEqual(await views(cordelia), [
    { fragment: 'inbox', is_pinned: true, name: null },
    { fragment: custom.fragment, is_pinned: false, name: 'Watched phrases' },
  ]);

  await succeeds('DELETE', path, cordelia.delete(path));
  const removed = await next(queue, of('navigation_view', 'remove'));
  t.is(removed.fragment, custom.fragment);
  t.deepEqual(
    (await views(cordelia)).map((v) => v.fragment),
    ['inbox'],
  );
});

test('navigation views: blank, duplicate, misnamed and unknown views are refused', async (t) => {
  const prospero = await t.context.server.login('prospero@zulip.com');
  const post = (params: Body) => prospero.post<Body>('/navigation_views', params);
  const reference: [string, string] = ['POST', '/navigation_views'];
  await refused(t, post({ fragment: '  ', is_pinned: true }), 'fragment cannot be blank', reference);
  await refused(
    t,
    post({ fragment: 'inbox', is_pinned: true, name: 'Mine' }),
    'Built-in views cannot have a custom name.',
  );
  await refused(t, post({ fragment: 'narrow/is/unread', is_pinned: true }), 'Custom views must have a valid name.');
  await succeeds('POST', '/navigation_views', post({ fragment: 'narrow/is/unread', is_pinned: true, name: 'Unread' }));
  const exists = 'Navigation view already exists.';
  await refused(t, post({ fragment: 'narrow/is/unread', is_pinned: false, name: 'Other' }), exists);
  await refused(t, post({ fragment: 'narrow/is/followed', is_pinned: false, name: 'Unread' }), exists);
  await refused(t, prospero.patch(viewPath('narrow/is/unread'), { name: 'Unread' }), exists);
  const builtIn = prospero.patch<Body>(viewPath('recent'), { name: 'Recent' });
  await refused(t, builtIn, 'Built-in views cannot have a custom name.', ['PATCH', '/navigation_views/recent']);
  const [nothing, gone] = [viewPath('narrow/is/nothing'), 'Navigation view does not exist.'];
  await notFound(t, prospero.patch(nothing, { is_pinned: true }), gone, ['PATCH', nothing], 'NOT_FOUND');
  await notFound(t, prospero.delete(nothing), gone, ['DELETE', nothing]);
  // Views are per user: another user neither sees nor removes this one.
  const zoe = await t.context.server.login('ZOE@zulip.com');
  const unread = viewPath('narrow/is/unread');
  await notFound(t, zoe.delete(unread), gone, ['DELETE', unread]);
  t.deepEqual(await views(zoe), []);
  t.deepEqual(await views(prospero), [{ fragment: 'narrow/is/unread', is_pinned: true, name: 'Unread' }]);
});

test('register: saved_snippets and navigation_views sections, only when asked for, events only to the owner', async (t) => {
  const shiva = await t.context.server.login('shiva@zulip.com');
  await succeeds('POST', '/saved_snippets', shiva.post('/saved_snippets', { title: 'Hi', content: 'Hello!' }));
  await succeeds('POST', '/navigation_views', shiva.post('/navigation_views', { fragment: 'feed', is_pinned: true }));
  const queue = await register(shiva, {
    event_types: ['saved_snippets', 'navigation_view'],
    fetch_event_types: ['saved_snippets', 'navigation_views'],
  });
  t.deepEqual(queue.snapshot.saved_snippets, await snippets(shiva));
  t.deepEqual(queue.snapshot.navigation_views, [{ fragment: 'feed', is_pinned: true, name: null }]);
  const without = await register(shiva, { event_types: ['saved_snippets'], fetch_event_types: ['realm'] });
  t.false('saved_snippets' in without.snapshot);
  t.false('navigation_views' in without.snapshot);

  const other = await register(await t.context.server.login('desdemona@zulip.com'), {
    event_types: ['saved_snippets'],
  });
  await succeeds('POST', '/saved_snippets', shiva.post('/saved_snippets', { title: 'Bye', content: 'Goodbye!' }));
  await next(queue, of('saved_snippets', 'add'));
  t.false((await held(other)).some((e) => e.type === 'saved_snippets'));
});
