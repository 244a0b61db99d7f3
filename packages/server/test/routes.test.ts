import type { ChatClient, Params, Reply } from '@chat/testkit';
import { withServer } from './context.js';
import { onCluster } from './cluster-target.js';
import { wrongKey } from './support.js';
import { missing, NOTHING_BAD, onMade, type LadderCase as Case } from './ladder.js';
import { personalLadder } from './personal-routes.js';
import { peopleLadder } from './people-routes.js';
import { groupLadder } from './group-routes.js';
import { inviteLadder } from './invite-routes.js';
import { accountLadder } from './account-routes.js';
import { botLadder } from './bot-routes.js';
import { orgLadder } from './org-routes.js';
import { linkifierLadder } from './linkifier-routes.js';
import { profileFieldLadder } from './profile-field-routes.js';
import { readingLadder } from './reading-routes.js';
import { downloadLadder } from './download-routes.js';
import { exportLadder } from './export-routes.js';
import { callLadder, UNCALLED_BIG_BLUE_BUTTON } from './calls-routes.js';

/**
 * The ladder every route climbs: no credentials, wrong credentials, a
 * malformed or missing parameter, an unknown parameter, then success. The
 * table must name every operation the server documents, so a new route
 * cannot skip it.
 */
const SECTIONS = [
  personalLadder,
  peopleLadder,
  groupLadder,
  inviteLadder,
  accountLadder,
  orgLadder,
  linkifierLadder,
  profileFieldLadder,
  botLadder,
  readingLadder,
  callLadder,
  downloadLadder,
  exportLadder,
];

/** Messages made in `before`, one per case that changes or reads a message. */
const made: Record<string, number> = {};
const messageCase = (method: Case['method'], suffix: string, valid: Params, bad: Case['bad']): Case =>
  onMade(
    method,
    `/messages/{message_id}${suffix}`,
    () => `/messages/${made[`${method} ${suffix}`]}${suffix}`,
    valid,
    bad,
  );

/** Event queues made in `before`: one to read, one to delete. */
const pollQueue: Params = { dont_block: true };
const doomedQueue: Params = {};
/** An upload made in `before`, for the attachment case. */
let attachmentId = 0;
/** A channel made in `before`, for the archive case. */
let archivedId = 0;

const CASES: Case[] = [
  { method: 'GET', path: '/server_settings', auth: false, valid: {}, bad: NOTHING_BAD },
  {
    method: 'POST',
    path: '/fetch_api_key',
    auth: false,
    valid: { username: 'iago@zulip.com', password: 'wrong' },
    bad: { params: { password: 'x' }, name: 'username', code: 'REQUEST_VARIABLE_MISSING' },
  },
  {
    method: 'POST',
    path: '/dev_fetch_api_key',
    auth: false,
    valid: { username: 'iago@zulip.com' },
    bad: { params: {}, name: 'username', code: 'REQUEST_VARIABLE_MISSING' },
  },
  { method: 'GET', path: '/users/me', auth: true, valid: {}, bad: NOTHING_BAD },
  {
    method: 'GET',
    path: '/users',
    auth: true,
    valid: { client_gravatar: true },
    bad: { params: { user_ids: '[1, "two"]' }, name: 'user_ids' },
  },
  {
    method: 'POST',
    path: '/users',
    auth: true,
    valid: { email: 'ladder@zulip.com', password: 'pw', full_name: 'Ladder' },
    bad: { params: { email: 'x@zulip.com', full_name: 'X' }, name: 'password', code: 'REQUEST_VARIABLE_MISSING' },
  },
  {
    method: 'GET',
    path: '/users/10',
    template: '/users/{user_id}',
    auth: true,
    valid: {},
    bad: { path: '/users/ten', params: {}, name: 'user_id' },
  },
  ...messagingCases(),
  ...SECTIONS.flatMap((section) => section.cases),
];

function messagingCases(): Case[] {
  return [
    {
      method: 'POST',
      path: '/messages',
      auth: true,
      valid: { type: 'stream', to: 'Verona', topic: 'ladder', content: 'hello' },
      bad: missing('content', { type: 'stream', to: 'Verona', topic: 'ladder' }),
    },
    {
      method: 'GET',
      path: '/messages',
      auth: true,
      valid: { anchor: 'newest', num_before: 5, num_after: 0 },
      bad: { params: { anchor: 'newest', num_before: 'many' }, name: 'num_before' },
    },
    {
      method: 'GET',
      path: '/messages/matches_narrow',
      auth: true,
      valid: { msg_ids: '[1]', narrow: '[]' },
      bad: { params: { msg_ids: '["x"]', narrow: '[]' }, name: 'msg_ids' },
    },
    {
      method: 'POST',
      path: '/messages/render',
      auth: true,
      valid: { content: '**bold**' },
      bad: missing('content'),
    },
    {
      method: 'POST',
      path: '/messages/flags',
      auth: true,
      valid: { messages: '[]', op: 'add', flag: 'read' },
      bad: { params: { messages: '[]', op: 'toggle', flag: 'read' }, name: 'op' },
    },
    messageCase('GET', '', {}, { path: '/messages/x', params: {}, name: 'message_id' }),
    messageCase(
      'PATCH',
      '',
      { content: 'edited' },
      { path: '/messages/x', params: { content: 'y' }, name: 'message_id' },
    ),
    messageCase('DELETE', '', {}, { path: '/messages/x', params: {}, name: 'message_id' }),
    messageCase('GET', '/history', {}, { path: '/messages/x/history', params: {}, name: 'message_id' }),
    messageCase('POST', '/reactions', { emoji_name: 'smile' }, missing('emoji_name')),
    // emoji_name is optional when removing (emoji_code may name the reaction instead).
    messageCase(
      'DELETE',
      '/reactions',
      { emoji_name: 'smile' },
      { path: '/messages/x/reactions', params: { emoji_name: 'smile' }, name: 'message_id' },
    ),
    {
      // On a message of its own, which the caller may always attach a submessage to.
      method: 'POST',
      path: '/submessage',
      auth: true,
      valid: { message_id: 1, msg_type: 'widget', content: '{}' },
      fresh: async (client) => {
        const sent = await client.post<{ id: number }>('/messages', {
          type: 'stream',
          to: 'Denmark',
          topic: 'ladder',
          content: '/poll Ladder?',
        });
        return { message_id: sent.body.id, msg_type: 'widget', content: '{"type":"vote","key":"canned,0","vote":1}' };
      },
      bad: missing('content', { message_id: 1, msg_type: 'widget' }),
    },
    {
      method: 'GET',
      path: '/users/me/subscriptions',
      auth: true,
      valid: { include_subscribers: true },
      bad: { params: { include_subscribers: 'perhaps' }, name: 'include_subscribers' },
    },
    {
      method: 'POST',
      path: '/users/me/subscriptions',
      auth: true,
      valid: { subscriptions: '[{"name": "ladder"}]' },
      bad: missing('subscriptions'),
    },
    {
      method: 'DELETE',
      path: '/users/me/subscriptions',
      auth: true,
      valid: { subscriptions: '["Scotland"]' },
      bad: { params: { subscriptions: 'Scotland' }, name: 'subscriptions' },
    },
    {
      method: 'POST',
      path: '/users/me/subscriptions/properties',
      auth: true,
      // Verona (3), which iago is subscribed to.
      valid: { subscription_data: '[{"stream_id": 3, "property": "pin_to_top", "value": true}]' },
      bad: missing('subscription_data'),
    },
    {
      method: 'PATCH',
      path: '/users/me/subscriptions',
      auth: true,
      valid: { add: '[{"name": "ladder patched"}]' },
      bad: { params: { delete: 'Scotland' }, name: 'delete' },
    },
    {
      method: 'POST',
      path: '/channels/create',
      auth: true,
      valid: { name: 'ladder created', subscribers: '[11]' },
      bad: missing('subscribers', { name: 'x' }),
    },
    {
      method: 'GET',
      path: '/streams',
      auth: true,
      valid: { include_public: true },
      bad: { params: { include_public: 'maybe' }, name: 'include_public' },
    },
    {
      method: 'GET',
      path: '/streams/3',
      template: '/streams/{stream_id}',
      auth: true,
      valid: {},
      bad: { path: '/streams/three', params: {}, name: 'stream_id' },
    },
    {
      method: 'PATCH',
      path: '/streams/2',
      template: '/streams/{stream_id}',
      auth: true,
      valid: { description: 'A place to try things' },
      bad: { params: { is_private: 'sometimes' }, name: 'is_private' },
    },
    {
      method: 'GET',
      path: '/get_stream_id',
      auth: true,
      valid: { stream: 'Verona' },
      bad: missing('stream'),
    },
    {
      method: 'GET',
      path: '/streams/3/members',
      template: '/streams/{stream_id}/members',
      auth: true,
      valid: {},
      bad: { path: '/streams/x/members', params: {}, name: 'stream_id' },
    },
    {
      method: 'GET',
      path: '/users/me/3/topics',
      template: '/users/me/{stream_id}/topics',
      auth: true,
      valid: {},
      bad: { path: '/users/me/x/topics', params: {}, name: 'stream_id' },
    },
    onMade(
      'DELETE',
      '/streams/{stream_id}',
      () => `/streams/${archivedId}`,
      {},
      {
        path: '/streams/attic',
        params: {},
        name: 'stream_id',
      },
    ),
    {
      method: 'POST',
      path: '/streams/2/delete_topic',
      template: '/streams/{stream_id}/delete_topic',
      auth: true,
      valid: { topic_name: 'nothing here' },
      bad: missing('topic_name'),
    },
    {
      method: 'POST',
      path: '/user_topics',
      auth: true,
      valid: { stream_id: 3, topic: 'ladder', visibility_policy: 1 },
      bad: { params: { stream_id: 3, topic: 'ladder', visibility_policy: 7 }, name: 'visibility_policy' },
    },
    {
      method: 'POST',
      path: '/register',
      // Without credentials it answers a spectator's snapshot (register.test.ts).
      auth: false,
      valid: { event_types: '["message"]', fetch_event_types: '["realm"]' },
      bad: { params: { apply_markdown: 'maybe' }, name: 'apply_markdown' },
    },
    { method: 'GET', path: '/events', auth: true, valid: pollQueue, bad: missing('queue_id') },
    { method: 'DELETE', path: '/events', auth: true, valid: doomedQueue, bad: missing('queue_id') },
    { method: 'POST', path: '/user_uploads', auth: true, files: true, valid: {}, bad: NOTHING_BAD },
    { method: 'GET', path: '/attachments', auth: true, valid: {}, bad: NOTHING_BAD },
    onMade(
      'DELETE',
      '/attachments/{attachment_id}',
      () => `/attachments/${attachmentId}`,
      {},
      {
        path: '/attachments/x',
        params: {},
        name: 'attachment_id',
      },
    ),
  ];
}

const test = withServer(['iago'], UNCALLED_BIG_BLUE_BUTTON, async (t) => {
  for (const c of CASES.filter((c) => c.at && c.path.startsWith('/messages/'))) {
    const key = `${c.method} ${c.path.replace('/messages/{message_id}', '')}`;
    const sent = await t.context.iago.post<{ id: number }>('/messages', {
      type: 'stream',
      to: 'Denmark',
      topic: 'ladder',
      content: key,
    });
    made[key] = sent.body.id;
  }
  await t.context.iago.post(`/messages/${made['DELETE /reactions']}/reactions`, { emoji_name: 'smile' });
  await t.context.iago.upload('/user_uploads', [{ name: 'doomed.txt', data: Buffer.from('x') }]);
  const listed = await t.context.iago.get<{ attachments: Array<{ id: number }> }>('/attachments');
  attachmentId = listed.body.attachments[0]!.id;
  await t.context.iago.post('/users/me/subscriptions', { subscriptions: '[{"name": "ladder attic"}]' });
  const attic = await t.context.iago.get<{ stream_id: number }>('/get_stream_id', { stream: 'ladder attic' });
  archivedId = attic.body.stream_id;
  for (const section of SECTIONS) await section.prepare?.(t.context.iago);
  for (const queue of [pollQueue, doomedQueue]) {
    const registered = await t.context.iago.post<{ queue_id: string }>('/register', { fetch_event_types: '[]' });
    queue.queue_id = registered.body.queue_id;
  }
});

const locks = new Map<string, Promise<unknown>>();
/** Runs `work` after the work of the same lock started before it. */
function locked<T>(lock: string | undefined, work: () => Promise<T>): Promise<T> {
  if (!lock) return work();
  const run = (locks.get(lock) ?? Promise.resolve()).then(work, work);
  locks.set(lock, run);
  return run;
}

const send = (client: ChatClient, c: Case, params: Params, path = c.at?.() ?? c.path): Promise<Reply> =>
  c.files
    ? client.upload(path, [c.file ?? { name: 'ladder.txt', data: Buffer.from('ladder') }], params)
    : client.call(c.method, path, params);

function assertNoStack(t: { false(v: boolean, m?: string): void }, reply: Reply) {
  const text = JSON.stringify(reply.body);
  t.false(/\n\s+at |\.ts:\d+|\.js:\d+/.test(text), `stack trace leaked: ${text}`);
}

test('the table covers every documented operation', async (t) => {
  const { body } = await t.context.server.client.get<{ paths: Record<string, Record<string, unknown>> }>(
    '//api/v1/openapi.json',
  );
  const documented = Object.entries(body.paths).flatMap(([path, ops]) =>
    Object.keys(ops).map((method) => `${method.toUpperCase()} ${path.replace(/^\/api\/v1/, '')}`),
  );
  const covered = CASES.map((c) => `${c.method} ${c.template ?? c.path}`);
  t.deepEqual([...documented].sort(), [...covered].sort());
});

test('the served document gives an enum of whole numbers as an integer, as the reference does', async (t) => {
  type Doc = {
    paths: Record<string, Record<string, { requestBody: { content: Record<string, { schema: Params }> } }>>;
  };
  const { body } = await t.context.server.client.get<Doc>('//api/v1/openapi.json');
  const settings = body.paths['/settings']!.patch!.requestBody.content['application/x-www-form-urlencoded']!.schema;
  const properties = settings.properties as Record<string, unknown>;
  t.deepEqual(properties.color_scheme, { type: 'integer', enum: [1, 2, 3] });
  t.deepEqual(properties.web_home_view, { type: 'string', enum: ['recent_topics', 'inbox', 'all_messages'] });
});

for (const c of CASES) {
  const name = `${c.method} ${c.template ?? c.path}`;

  if (c.auth) {
    test(`${name}: no credentials -> 401 UNAUTHORIZED`, async (t) => {
      const reply = await send(t.context.server.client, c, c.valid);
      t.is(reply.status, 401);
      t.deepEqual(Object.keys(reply.body).sort(), ['code', 'msg', 'result']);
      t.like(reply.body, { result: 'error', code: 'UNAUTHORIZED' });
    });

    test(`${name}: wrong API key -> 401 INVALID_API_KEY`, async (t) => {
      const reply = await send(t.context.server.client.as(wrongKey('iago@zulip.com')), c, c.valid);
      t.is(reply.status, 401);
      t.like(reply.body, { result: 'error', code: 'INVALID_API_KEY', msg: 'Invalid API key' });
    });
  }

  if (c.bad.name) {
    test(`${name}: bad ${c.bad.name} -> 400 naming it`, async (t) => {
      const reply = await send(t.context.iago, c, c.bad.params, c.bad.path);
      t.is(reply.status, 400);
      t.is(reply.body.code, c.bad.code ?? 'BAD_REQUEST');
      t.true(reply.body.msg.includes(c.bad.name), reply.body.msg);
      assertNoStack(t, reply);
    });
  }

  test(`${name}: an unknown parameter is reported, not fatal`, async (t) => {
    const client = c.as?.() ?? t.context.iago;
    const reply = await locked(c.lock, async () => {
      const params: Params = { ...(c.fresh ? await c.fresh(client) : c.valid), no_such_parameter: 'x' };
      if (c.path === '/users' && c.method === 'POST') params.email = 'ladder2@zulip.com';
      return send(client, c, params);
    });
    if (c.path === '/fetch_api_key') {
      // The only ladder case whose valid form fails: it authenticates with a wrong password.
      t.is(reply.status, 401);
      return;
    }
    if (c.path.startsWith('/mobile_push/')) {
      // This server has no push bouncer: past the parameters, the request is refused for that alone.
      t.is(reply.body.code, 'PUSH_SERVICE_NOT_CONFIGURED');
      return;
    }
    t.is(reply.status, 200, JSON.stringify(reply.body));
    t.is(reply.body.result, 'success');
    t.deepEqual(reply.body.ignored_parameters_unsupported, ['no_such_parameter']);
  });
}

test('an unknown route answers 404 with an envelope', async (t) => {
  for (const path of ['/no/such/route', '/users/10/nothing']) {
    const reply = await t.context.iago.get(path);
    t.is(reply.status, 404);
    t.like(reply.body, { result: 'error', code: 'NOT_FOUND' });
  }
  const outside = await t.context.server.client.get('//favicon.ico');
  t.is(outside.status, 404);
  t.is(outside.body.result, 'error');
});

test('every response carries a request id, echoed when the client sent one', async (t) => {
  const mine = await t.context.server.client.call('GET', '/server_settings', {}, { 'x-request-id': 'abc-123' });
  t.is(mine.headers.get('x-request-id'), 'abc-123');
  const theirs = await t.context.server.client.get('/server_settings');
  t.regex(theirs.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
});

test('metrics are served for scraping', async (t) => {
  const { url } = t.context.server.server;
  // Straight to this edge: a cluster's test client spreads requests over its edges.
  const { email, apiKey } = t.context.iago.credentials!;
  const authorization = `Basic ${Buffer.from(`${email}:${apiKey}`).toString('base64')}`;
  t.is((await fetch(`${url}/api/v1/users/me`, { headers: { authorization } })).status, 200);
  const response = await fetch(`${url}/metrics`);
  const text = await response.text();
  t.is(response.status, 200);
  t.regex(text, /http_requests_total\{[^}]*route="\/api\/v1\/users\/me"[^}]*\} \d+/);
  // The actor runtime's figures are the node's: in a cluster, each actor host has its own.
  if (onCluster) return;
  t.regex(text, /chat_journal_fsyncs \d+/);
  t.regex(text, /chat_actors_live \d+/);
});
