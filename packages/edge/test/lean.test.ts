import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { Type } from '@sinclair/typebox';
import type Koa from 'koa';
import { ChatError } from '@chat/protocol';
import { typedClient } from '@chat/runtime';
import { Admission, DEFAULT_ADMISSION, RateLimiter, DEFAULT_RATE_LIMITS } from '../src/index.js';
import { createEdgeApp, createLogger, createMetricsRegistry, defineRoute, RawJson, type Route } from '../src/index.js';
import { MemoryRateLimitStore } from '../src/rate-limit-store.js';
import { FakeActors, IAGO, LIMITS, authenticate, basic } from './fixtures.js';

/**
 * A lean route (`lean.ts`, served without Koa) answers exactly as the same
 * route through Koa: the twin below is the same route without `lean`.
 */
function pollRoute(path: string, lean: boolean): Route {
  return defineRoute({
    method: 'GET',
    path,
    auth: 'required',
    lean,
    summary: 'Poll',
    description: 'A long poll.',
    params: Type.Object({
      queue_id: Type.String(),
      last_event_id: Type.Optional(Type.Integer()),
      dont_block: Type.Optional(Type.Boolean()),
    }),
    async handler({ params, principal, appendHeader, closed }) {
      if (params.queue_id === 'held') {
        // Waits until its client leaves, then fails as a poll cut off by a stopping server does.
        while (!closed()) await new Promise((resolve) => setTimeout(resolve, 10));
        throw new ChatError('OVERLOADED', 'The server is stopping; try again', { 'retry-after': 1 });
      }
      if (params.queue_id === 'gone') {
        throw new ChatError('BAD_EVENT_QUEUE_ID', `Bad event queue ID: ${params.queue_id}`, {
          queue_id: params.queue_id,
        });
      }
      if (params.queue_id === 'fault') throw new Error('a fault of ours');
      appendHeader('X-Extra', 'one');
      appendHeader('X-Extra', 'two');
      const events = new RawJson(`[{"id":${params.last_event_id ?? -1},"type":"heartbeat"}]`) as never;
      return { events, queue_id: params.queue_id, user: principal.user_id, dont_block: params.dont_block ?? null };
    },
  });
}

interface Edge {
  server: Server;
  url: string;
  logLines: Record<string, unknown>[];
  /** Paths and request ids that went through Koa's middleware. */
  koa: string[];
}

async function start(): Promise<Edge> {
  const logLines: Record<string, unknown>[] = [];
  const logger = createLogger({ level: 'info' }, { write: (line: string) => logLines.push(JSON.parse(line)) });
  const store = () => new MemoryRateLimitStore(1000);
  const app: Koa = createEdgeApp({
    routes: [pollRoute('/poll', true), pollRoute('/twin', false)],
    actors: typedClient(new FakeActors()),
    authenticate,
    logger,
    metrics: createMetricsRegistry({ processMetrics: false }),
    limits: LIMITS,
    rateLimiter: new RateLimiter(DEFAULT_RATE_LIMITS, { user: store(), ip: store(), login: store() }),
    admission: new Admission(DEFAULT_ADMISSION),
    session: async (key) =>
      key === 'good-session'
        ? authenticate({ email: 'iago@zulip.com', apiKey: 'good-key' }, undefined as never)
        : undefined,
  });
  const koa: string[] = [];
  app.middleware.unshift(async (ctx, next) => {
    koa.push(ctx.get('X-Request-Id') || ctx.path);
    await next();
  });
  const server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, logLines, koa };
}

let edge: Edge;
test.before(async () => {
  edge = await start();
});
test.after.always(() => new Promise<void>((resolve) => edge.server.close(() => resolve())));

interface Seen {
  /** Through Koa's middleware. */
  koa: boolean;
  status: number;
  headers: Record<string, string>;
  text: string;
  log: Record<string, unknown>;
}

/** A request, its answer without what differs by nature (date, route name, duration), and its log line. */
async function seen(path: string, init: RequestInit & { headers?: Record<string, string> }): Promise<Seen> {
  const requestId = `r${Math.random().toString(36).slice(2)}`;
  const response = await fetch(`${edge.url}${path}`, {
    ...init,
    headers: { ...init.headers, 'X-Request-Id': requestId },
  });
  const text = (await response.text()).replaceAll('/twin', '/poll');
  const headers = Object.fromEntries(
    [...response.headers].filter(
      ([name]) => !['date', 'x-request-id', 'x-ratelimit-reset', 'x-ratelimit-remaining'].includes(name),
    ),
  );
  t_assertId(response.headers.get('x-request-id'), requestId);
  const line = edge.logLines.find((l) => l['requestId'] === requestId && l['msg'] === 'request');
  const { time: _t, durationMs: _d, pid: _p, requestId: _r, ...log } = line ?? {};
  for (const [k, v] of Object.entries(log)) if (typeof v === 'string') log[k] = v.replaceAll('/twin', '/poll');
  return { koa: edge.koa.includes(requestId), status: response.status, headers, text, log };
}

function t_assertId(got: string | null, sent: string): void {
  if (got !== sent) throw new Error(`X-Request-Id ${got} for ${sent}`);
}

const cases: Array<[string, string, RequestInit & { headers?: Record<string, string> }]> = [
  ['answered', '?queue_id=q1&last_event_id=4&dont_block=true', { headers: { Authorization: IAGO } }],
  ['a repeated parameter (the last counts)', '?queue_id=q1&queue_id=q2', { headers: { Authorization: IAGO } }],
  ['an unknown parameter', '?queue_id=q1&foo=1', { headers: { Authorization: IAGO } }],
  [
    'empty pairs, a name without a value',
    '?&queue_id=q1&&foo&last_event_id=3=4&',
    { headers: { Authorization: IAGO } },
  ],
  ['a value to decode', '?queue_id=q%31+x&last_event_id=%33', { headers: { Authorization: IAGO } }],
  ['no credentials', '?queue_id=q1', {}],
  ['a wrong key', '?queue_id=q1', { headers: { Authorization: basic('iago@zulip.com', 'bad') } }],
  ['a deactivated user', '?queue_id=q1', { headers: { Authorization: basic('gone@zulip.com', 'k') } }],
  ['a malformed header', '?queue_id=q1', { headers: { Authorization: 'Bearer x' } }],
  ['no queue_id', '', { headers: { Authorization: IAGO } }],
  ['a bad last_event_id', '?queue_id=q1&last_event_id=x', { headers: { Authorization: IAGO } }],
  ['a bad dont_block', '?queue_id=q1&dont_block=maybe', { headers: { Authorization: IAGO } }],
  ['a gone queue', '?queue_id=gone', { headers: { Authorization: IAGO } }],
  ['a fault', '?queue_id=fault', { headers: { Authorization: IAGO } }],
];

for (const [name, query, init] of cases) {
  for (const prefix of ['/api/v1', '/json']) {
    test(`${prefix}: ${name}: the lean route answers as through Koa`, async (t) => {
      const lean = await seen(`${prefix}/poll${query}`, init);
      const koa = await seen(`${prefix}/twin${query}`, init);
      t.false(lean.koa, 'served without Koa');
      t.true(koa.koa);
      t.deepEqual({ ...lean, koa: true }, koa);
    });
  }
}

test('/json: a session is a caller of the lean route, as through Koa', async (t) => {
  const init = { headers: { Cookie: 'sessionid=good-session' } };
  const lean = await seen('/json/poll?queue_id=s1', init);
  t.false(lean.koa);
  t.deepEqual({ ...lean, koa: true }, await seen('/json/twin?queue_id=s1', init));
  t.is(lean.status, 200);
  t.like(JSON.parse(lean.text), { result: 'success', queue_id: 's1', user: 11 });
  t.is(lean.headers['x-extra'], 'one, two');
  t.is(lean.headers['x-ratelimit-limit'], '200');
  t.is((await seen('/json/poll?queue_id=s1', { headers: { Cookie: 'sessionid=bad' } })).status, 401);
});

test('a body, another method, a trailing slash: through Koa', async (t) => {
  const headers = (id: string) => ({ Authorization: IAGO, 'X-Request-Id': id });
  const slash = await fetch(`${edge.url}/api/v1/poll/?queue_id=q9`, { headers: headers('slash') });
  t.is(slash.status, 200);
  t.like(await slash.json(), { queue_id: 'q9' });
  const deleted = await fetch(`${edge.url}/api/v1/poll?queue_id=q9`, { method: 'DELETE', headers: headers('delete') });
  t.is(deleted.status, 405);
  // A GET with a body: Koa reads none (koa-body's methods), so the parameter sent there is missing.
  const withBody = await new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = request(`${edge.url}/api/v1/poll`, {
      method: 'GET',
      headers: { ...headers('body'), 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': '16' },
    });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end('queue_id=in-body');
  });
  t.is(withBody.status, 400, withBody.text);
  t.like(JSON.parse(withBody.text), { msg: "Missing 'queue_id' argument" });
  for (const id of ['slash', 'delete', 'body']) t.true(edge.koa.includes(id), id);
});

for (const path of ['/api/v1/poll', '/api/v1/twin']) {
  test(`${path}: a failure answered to a connection already closed is logged at info, not as an error`, async (t) => {
    const requestId = `held${path.length}`;
    const gone = new AbortController();
    const asked = fetch(`${edge.url}${path}?queue_id=held`, {
      headers: { Authorization: IAGO, 'X-Request-Id': requestId },
      signal: gone.signal,
    });
    setTimeout(() => gone.abort(), 100);
    t.is(
      await asked.then(
        () => 'answered',
        () => 'cut',
      ),
      'cut',
    );
    const lines = async () => {
      for (let i = 0; i < 200 && !edge.logLines.some((l) => l['requestId'] === requestId); i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return edge.logLines.filter((l) => l['requestId'] === requestId);
    };
    t.like(await lines(), [{ level: 30, msg: 'request', status: 503, closed: true }]);
  });
}
