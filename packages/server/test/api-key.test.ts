import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import anyTest, { type TestFn } from 'ava';
import { apiRoutes, authenticateWith, type ApiOptions } from '@chat/api';
import { createEdgeApp, createLogger, createMetricsRegistry } from '@chat/edge';
import { ChatClient, type Credentials } from '@chat/testkit';
import { realmResolver } from '../src/realm-host.js';
import { TestServer } from './support.js';

/**
 * `POST /users/me/api_key/regenerate`: the old key is refused on the very
 * next request, on every edge. The test runs a second edge over the same
 * node, as a cluster runs several, so that a key remembered by any one
 * edge would show.
 */
const test = anyTest as TestFn<{ server: TestServer; edges: ChatClient[]; closeEdge(): void }>;

/** Another edge in front of the same actors: its own Koa app, HTTP server and port. */
async function secondEdge(server: TestServer): Promise<{ url: string; close(): void }> {
  const { node, url: externalUrl } = server.server;
  const options: ApiOptions = {
    mode: 'development',
    externalUrl,
    realmOf: realmResolver(externalUrl, 'zulip'),
    wildcardThreshold: 15,
    presenceEventUserLimit: 100,
    topicDeleteBudgetMs: 10_000,
    heartbeatMs: 60_000,
    files: node.files,
    maxFileUploadSizeMib: 1,
    exportLimits: { maxMessages: 250_000, maxUploadBytes: 20 * 1024 ** 3, administrator: 'zulip-admin@example.com' },
  };
  const app = createEdgeApp({
    routes: apiRoutes(options),
    actors: node.actors,
    authenticate: authenticateWith(options),
    logger: createLogger({ level: 'silent' }),
    metrics: createMetricsRegistry(),
    limits: { bodyBytes: 1 << 20, uploadBytes: 1 << 20 },
  });
  const http = createServer(app.callback());
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => http.close() };
}

test.before(async (t) => {
  t.context.server = await TestServer.start();
  const edge = await secondEdge(t.context.server);
  t.context.closeEdge = edge.close;
  t.context.edges = [t.context.server.client, new ChatClient(edge.url)];
});
test.after.always(async (t) => {
  t.context.closeEdge?.();
  await t.context.server?.stop();
});

/** The caller's user id through each edge in turn, or the status of the first refusal. */
async function meOnEveryEdge(edges: ChatClient[], credentials: Credentials) {
  return Promise.all(
    edges.map(async (edge) => {
      const reply = await edge.as(credentials).get<{ user_id: number }>('/users/me');
      return reply.status === 200
        ? { status: 200 }
        : { status: reply.status, code: reply.body.code, msg: reply.body.msg };
    }),
  );
}

async function regenerate(edge: ChatClient, credentials: Credentials): Promise<string> {
  const reply = await edge.as(credentials).post<{ api_key: string }>('/users/me/api_key/regenerate');
  if (reply.status !== 200) throw new Error(`regenerate: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.api_key;
}

const refused = { status: 401, code: 'INVALID_API_KEY', msg: 'Invalid API key' };

test('a regenerated key replaces the old one at once, on every edge', async (t) => {
  const { server, edges } = t.context;
  const email = 'hamlet@zulip.com';
  const first = (await server.login(email)).credentials!;
  t.deepEqual(await meOnEveryEdge(edges, first), [{ status: 200 }, { status: 200 }]);

  const reply = await edges[0]!.as(first).post('/users/me/api_key/regenerate');
  t.is(reply.status, 200);
  // The original's answer: just the new key (the reference does not document this operation).
  t.deepEqual(Object.keys(reply.body).sort(), ['api_key', 'msg', 'result']);
  t.like(reply.body, { result: 'success', msg: '' });
  const second = { email, apiKey: reply.body.api_key as string };
  t.regex(second.apiKey, /^[A-Za-z0-9]{32}$/);
  t.not(second.apiKey, first.apiKey);
  // The very next requests, on both edges, without waiting for anything.
  t.deepEqual(await meOnEveryEdge(edges, first), [refused, refused]);
  t.deepEqual(await meOnEveryEdge(edges, second), [{ status: 200 }, { status: 200 }]);

  // Regenerated through the other edge, the key is refused by the first one next.
  const third = { email, apiKey: await regenerate(edges[1]!, second) };
  t.deepEqual(await meOnEveryEdge(edges, second), [refused, refused]);
  t.deepEqual(await meOnEveryEdge(edges, third), [{ status: 200 }, { status: 200 }]);
  // And a login with the development backend hands out the current key, not an old one.
  t.is((await server.login(email)).credentials!.apiKey, third.apiKey);
});

test('an old key cannot regenerate a new one, and there is no key without credentials', async (t) => {
  const { server, edges } = t.context;
  const email = 'othello@zulip.com';
  const first = (await server.login(email)).credentials!;
  const current = { email, apiKey: await regenerate(edges[1]!, first) };
  const again = await edges[0]!.as(first).post('/users/me/api_key/regenerate');
  t.is(again.status, 401);
  t.like(again.body, { result: 'error', code: 'INVALID_API_KEY' });
  const anonymous = await edges[0]!.post('/users/me/api_key/regenerate');
  t.is(anonymous.status, 401);
  t.like(anonymous.body, { result: 'error', code: 'UNAUTHORIZED' });
  // Neither refusal changed the key.
  t.deepEqual(await meOnEveryEdge(edges, current), [{ status: 200 }, { status: 200 }]);
});

test('an event queue registered with the old key is polled only with the new one', async (t) => {
  const { server, edges } = t.context;
  const email = 'cordelia@zulip.com';
  const first = (await server.login(email)).credentials!;
  const queue = await edges[0]!.as(first).post<{ queue_id: string; last_event_id: number }>('/register', {
    event_types: '["message"]',
  });
  t.is(queue.status, 200);
  const second = { email, apiKey: await regenerate(edges[0]!, first) };
  const poll = (credentials: Credentials) =>
    edges[1]!.as(credentials).get('/events', {
      queue_id: queue.body.queue_id,
      last_event_id: queue.body.last_event_id,
      dont_block: true,
    });
  t.like((await poll(first)).body, { code: 'INVALID_API_KEY' });
  t.is((await poll(second)).status, 200);
});
