import type { ChatClient } from '@chat/testkit';
import { channelId, userId, withServer } from './context.js';
import { held, next, of, register, type Body } from './queues.js';
import { notFound } from './not-found.js';
import { refused, succeeds } from './replies.js';

/**
 * Drafts (spec "Draft", operations 10 and 11): kept by the owner's
 * UserActor, synchronized to their other clients by `drafts` events. Each
 * test works as a user of its own, so concurrent tests see no one else's
 * drafts.
 */
const test = withServer<'iago', { verona: number }>(['iago'], { heartbeatMs: 1000 }, async (t) => {
  t.context.verona = await channelId(t.context.iago, 'Verona');
});

interface Draft {
  id: number;
  type: string;
  to: number[];
  topic: string;
  content: string;
  timestamp: number;
}

const json = (value: unknown) => JSON.stringify(value);
const list = async (client: ChatClient) =>
  succeeds<{ count: number; drafts: Draft[] }>('GET', '/drafts', client.get('/drafts'));
const create = async (client: ChatClient, drafts: Body[]) =>
  (await succeeds<{ ids: number[] }>('POST', '/drafts', client.post('/drafts', { drafts: json(drafts) }))).ids;

test('create, list, edit and delete drafts; each change reaches the owner as a drafts event', async (t) => {
  const hamlet = await t.context.server.login('hamlet@zulip.com');
  const othello = await userId(await t.context.server.login('othello@zulip.com'));
  const me = await userId(hamlet);
  const queue = await register(hamlet, { event_types: ['drafts'] });
  const ids = await create(hamlet, [
    { type: 'stream', to: [t.context.verona], topic: 'plans', content: 'first thoughts', timestamp: 1_000 },
    { type: 'private', to: [othello, me], topic: 'ignored', content: '\n\nhello there  ' },
  ]);
  t.is(ids.length, 2);
  const added = await next(queue, of('drafts', 'add'));
  const drafts = added.drafts as Draft[];
  t.deepEqual(
    drafts.map((d) => d.id),
    ids,
  );
  t.like(drafts[0], {
    type: 'stream',
    to: [t.context.verona],
    topic: 'plans',
    content: 'first thoughts',
    timestamp: 1_000,
  });
  // The caller leaves a direct-message group, the topic goes, content is trimmed as a message's.
  t.like(drafts[1], { type: 'private', to: [othello], topic: '', content: 'hello there' });

  const listed = await list(hamlet);
  t.is(listed.count, 2);
  // Most recently edited first: the draft stamped now, then the one from 1970.
  t.deepEqual(
    listed.drafts.map((d) => d.id),
    [ids[1], ids[0]],
  );

  const edited = {
    type: 'stream',
    to: [t.context.verona],
    topic: 'plans',
    content: 'second thoughts',
    timestamp: 2_000,
  };
  await succeeds('PATCH', `/drafts/${ids[0]}`, hamlet.patch(`/drafts/${ids[0]}`, { draft: json(edited) }));
  const update = await next(queue, of('drafts', 'update'));
  t.deepEqual(update.draft, { id: ids[0], ...edited });
  t.like(
    (await list(hamlet)).drafts.find((d) => d.id === ids[0]),
    { content: 'second thoughts', timestamp: 2_000 },
  );

  await succeeds('DELETE', `/drafts/${ids[1]}`, hamlet.delete(`/drafts/${ids[1]}`));
  const removed = await next(queue, of('drafts', 'remove'));
  t.is(removed.draft_id, ids[1]);
  t.deepEqual(
    (await list(hamlet)).drafts.map((d) => d.id),
    [ids[0]],
  );
});

test('the server fills in the timestamp; an unaddressed draft keeps no recipient', async (t) => {
  const cordelia = await t.context.server.login('cordelia@zulip.com');
  const before = Math.floor(Date.now() / 1000);
  const [id] = await create(cordelia, [{ type: '', to: [5], topic: 'no one', content: 'idea' }]);
  const after = Math.ceil(Date.now() / 1000);
  const draft = (await list(cordelia)).drafts.find((d) => d.id === id)!;
  t.like(draft, { type: '', to: [], topic: '', content: 'idea' });
  t.true(draft.timestamp >= before && draft.timestamp <= after, `${draft.timestamp} in [${before}, ${after}]`);
});

test('invalid drafts are refused with the original errors, and nothing is created', async (t) => {
  const prospero = await t.context.server.login('prospero@zulip.com');
  const { verona } = t.context;
  const post = (draft: Body) => prospero.post<Body>('/drafts', { drafts: json([draft]) });
  const channelDraft = { type: 'stream', to: [verona], topic: 't', content: 'c' };
  const exactlyOne = 'Must specify exactly 1 channel ID for channel messages';
  await refused(t, post({ ...channelDraft, to: [] }), exactlyOne, ['POST', '/drafts']);
  await refused(t, post({ ...channelDraft, to: [verona, verona + 1] }), exactlyOne, ['POST', '/drafts']);
  await refused(t, post({ ...channelDraft, content: 'a\0b' }), 'Message must not contain null bytes');
  await refused(t, post({ ...channelDraft, topic: 'a\0b' }), 'Topic must not contain null bytes');
  await refused(t, post({ ...channelDraft, content: '  ' }), 'drafts[0]["content"] cannot be blank');
  await refused(t, post({ ...channelDraft, timestamp: -1 }), 'Timestamp must not be negative.');
  await refused(t, post({ ...channelDraft, to: [999_999] }), 'Invalid channel ID');
  await refused(t, post({ type: 'private', to: [999_999], topic: '', content: 'c' }), 'Invalid user ID 999999');
  await refused(t, post({ ...channelDraft, id: 3 }), 'Argument "id" at drafts[0] is unexpected');
  await refused(t, post({ ...channelDraft, type: 'direct' }), 'Invalid drafts[0]["type"]');
  t.is((await list(prospero)).count, 0);
});

test('editing or deleting a draft that is not the caller\'s: "Draft does not exist"', async (t) => {
  const aaron = await t.context.server.login('AARON@zulip.com');
  const zoe = await t.context.server.login('ZOE@zulip.com');
  const [id] = await create(aaron, [{ type: '', to: [], topic: '', content: 'mine' }]);
  const draft = json({ type: '', to: [], topic: '', content: 'taken' });
  for (const target of [id!, 999_999]) {
    const path = `/drafts/${target}`;
    await notFound(t, zoe.patch<Body>(path, { draft }), 'Draft does not exist', ['PATCH', path]);
    await notFound(t, zoe.delete<Body>(path), 'Draft does not exist', ['DELETE', path]);
  }
  t.like((await list(aaron)).drafts[0], { id, content: 'mine' });
});

test('with synchronization turned off, drafts are refused and the server keeps none', async (t) => {
  const iago = await t.context.server.login('iago@zulip.com');
  const [id] = await create(iago, [{ type: '', to: [], topic: '', content: 'kept until sync is off' }]);
  await succeeds('PATCH', '/settings', iago.patch('/settings', { enable_drafts_synchronization: false }));
  const disabled = 'User has disabled synchronizing drafts.';
  const draft = json({ type: '', to: [], topic: '', content: 'x' });
  await refused(t, iago.get<Body>('/drafts'), disabled);
  await refused(t, iago.post<Body>('/drafts', { drafts: `[${draft}]` }), disabled);
  await refused(t, iago.patch<Body>(`/drafts/${id}`, { draft }), disabled);
  await refused(t, iago.delete<Body>(`/drafts/${id}`), disabled);
  t.deepEqual((await register(iago, { event_types: ['drafts'], fetch_event_types: ['drafts'] })).snapshot.drafts, []);
  await succeeds('PATCH', '/settings', iago.patch('/settings', { enable_drafts_synchronization: true }));
  t.is((await list(iago)).count, 0);
});

test('register: the drafts section holds the same drafts, newest first, and only when asked for', async (t) => {
  const shiva = await t.context.server.login('shiva@zulip.com');
  await create(shiva, [
    { type: '', to: [], topic: '', content: 'older', timestamp: 10 },
    { type: '', to: [], topic: '', content: 'newer', timestamp: 20 },
  ]);
  const queue = await register(shiva, { event_types: ['drafts'], fetch_event_types: ['drafts'] });
  t.deepEqual(queue.snapshot.drafts, (await list(shiva)).drafts);
  t.deepEqual(
    (queue.snapshot.drafts as Draft[]).map((d) => d.content),
    ['newer', 'older'],
  );
  const without = await register(shiva, { event_types: ['drafts'], fetch_event_types: ['realm'] });
  t.false('drafts' in without.snapshot);
  // Another user's queue hears nothing of these drafts.
  const other = await register(await t.context.server.login('desdemona@zulip.com'), { event_types: ['drafts'] });
  await create(shiva, [{ type: '', to: [], topic: '', content: 'private' }]);
  await next(queue, of('drafts', 'add'));
  t.false((await held(other)).some((e) => e.type === 'drafts'));
});
