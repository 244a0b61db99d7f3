import { setTimeout as sleep } from 'node:timers/promises';
import anyTest, { type ExecutionContext, type TestFn } from 'ava';
import { checkResponse, type ChatClient, type Reply } from '@chat/testkit';
import { loadConfig, type Config } from '../src/index.js';
import { TestServer } from './support.js';

/**
 * Three servers: the real defaults (what an empty environment configures),
 * small limits so that tests stay short, and a two-second window to watch a
 * window end. Tests on one server use distinct users, so they may run
 * together; the ones that count unauthenticated requests are serial.
 *
 * With CHAT_TEST_TARGET=cluster each server is a cluster with two edges and
 * consecutive requests alternate between them, so every countdown and
 * refusal below holds only if the edges share their counts.
 */
interface Servers {
  real: TestServer;
  small: TestServer;
  short: TestServer;
  /** Logged in to `small` before any test, since its address runs out of unauthenticated requests. */
  on: Record<'hamlet' | 'othello' | 'cordelia' | 'shiva' | 'iago', ChatClient>;
}
const test = anyTest as TestFn<Servers>;

const DEFAULTS = loadConfig({}).rateLimits!;
const limits = (user: number, ip: number, windowMs = 60_000): Partial<Config> => ({
  rateLimits: { ...DEFAULTS, user: { limit: user, windowMs }, ip: { limit: ip, windowMs } },
});

// Starting a cluster (three hosts settling on their shards, two edges) takes a while on a busy machine.
const STARTUP_MS = 5 * 60_000;

test.before(async (t) => {
  t.timeout(STARTUP_MS);
  const [real, small, short] = await Promise.all([
    TestServer.start({ rateLimits: DEFAULTS }),
    TestServer.start(limits(5, 12)),
    TestServer.start(limits(3, 1000, 2000)),
  ]);
  const names = ['hamlet', 'othello', 'cordelia', 'shiva', 'iago'] as const;
  const clients = await Promise.all(names.map((name) => small.login(`${name}@zulip.com`)));
  const on = Object.fromEntries(names.map((name, i) => [name, clients[i]!])) as Servers['on'];
  t.context = { real, small, short, on };
});
test.after.always(async (t) => {
  const { real, small, short } = t.context;
  await Promise.all([real, small, short].map((server) => server?.stop()));
});

const header = (reply: Reply, name: string) => reply.headers.get(name);
const nowSeconds = () => Date.now() / 1000;

/** A reply and when its request left, in epoch seconds: its window ends no earlier than that plus retry-after. */
type Timed = Reply & { sentAt: number };
async function timed(send: () => Promise<Reply>): Promise<Timed> {
  const sentAt = nowSeconds();
  return Object.assign(await send(), { sentAt });
}

/** Every field and header of a refusal, against the original's envelope and the reference's schema. */
function assertRefused(t: ExecutionContext, reply: Timed, limit: number, windowSeconds: number): void {
  t.is(reply.status, 429);
  const body = reply.body as Record<string, unknown>;
  t.deepEqual(Object.keys(body).sort(), ['code', 'msg', 'result', 'retry-after']);
  t.like(body, { result: 'error', msg: 'API usage exceeded rate limit', code: 'RATE_LIMIT_HIT' });
  const retryAfter = body['retry-after'] as number;
  t.is(typeof retryAfter, 'number');
  t.true(retryAfter > 0 && retryAfter <= windowSeconds, `retry-after ${retryAfter}`);
  // The reference types retry-after as an integer, though its own example (28.706807374954224) and
  // the original send the float; everything else must match its RateLimitedError.
  const { errors } = checkResponse('POST', '/rest-error-handling', 429, body);
  t.deepEqual(
    errors.filter((e) => !e.startsWith('/retry-after: must be integer')),
    [],
  );
  t.is(header(reply, 'retry-after'), String(Math.ceil(retryAfter)));
  t.is(header(reply, 'x-ratelimit-limit'), String(limit));
  t.is(header(reply, 'x-ratelimit-remaining'), '0');
  const reset = Number(header(reply, 'x-ratelimit-reset'));
  t.true(Number.isInteger(reset));
  t.true(reset >= Math.floor(reply.sentAt + retryAfter) && reset <= nowSeconds() + retryAfter, `reset ${reset}`);
}

/** Sends until refused; returns the answers, the refusal last. */
async function untilRefused(send: () => Promise<Reply>, most: number): Promise<Timed[]> {
  const replies: Timed[] = [];
  while (replies.length < most) {
    const reply = await timed(send);
    replies.push(reply);
    if (reply.status === 429) break;
  }
  return replies;
}

/** The answers before the refusal count down by one to zero, under one limit. */
function assertCountdown(t: ExecutionContext, accepted: Reply[], limit: number): void {
  t.true(accepted.length > 0);
  const remaining = accepted.map((r) => Number(header(r, 'x-ratelimit-remaining')));
  const first = remaining[0]!;
  t.deepEqual(
    remaining,
    accepted.map((_, i) => first - i),
  );
  t.is(remaining.at(-1), 0);
  for (const reply of accepted) {
    t.is(reply.status, 200);
    t.is(header(reply, 'x-ratelimit-limit'), String(limit));
  }
}

test.serial('with the defaults, the 201st request of a user within a minute is refused', async (t) => {
  const prospero = await t.context.real.login('prospero@zulip.com');
  const replies: Timed[] = [];
  for (let i = 0; i < 201; i++) replies.push(await timed(() => prospero.get('/users/me')));
  const accepted = replies.slice(0, 200);
  t.is(header(accepted[0]!, 'x-ratelimit-remaining'), '199');
  assertCountdown(t, accepted, 200);
  const reset = Number(header(accepted[0]!, 'x-ratelimit-reset'));
  t.true(reset > nowSeconds() && reset <= nowSeconds() + 60, `reset ${reset}`);
  assertRefused(t, replies[200]!, 200, 60);
  // A refused request is not counted, and another user is not affected.
  assertRefused(t, await timed(() => prospero.get('/users/me')), 200, 60);
  const hamlet = await t.context.real.login('hamlet@zulip.com');
  t.is(header(await hamlet.get('/users/me'), 'x-ratelimit-remaining'), '199');
});

/** Makes a member with a password, as an administrator does. */
async function withPassword(server: TestServer, name: string, password: string): Promise<string> {
  const iago = await server.login('iago@zulip.com');
  const email = `${name}@zulip.com`;
  const made = await iago.post('/users', { email, password, full_name: name });
  if (made.status !== 200) throw new Error(`cannot create ${email}: ${JSON.stringify(made.body)}`);
  return email;
}

const fetchKey = (client: ChatClient, username: string, password: string) =>
  client.post('/fetch_api_key', { username, password });

test.serial('five failed logins lock a username out, even with the right password; others are not', async (t) => {
  const { real } = t.context;
  const locked = await withPassword(real, 'locked', 'right-password-1');
  const other = await withPassword(real, 'other', 'right-password-2');
  for (let i = 0; i < 5; i++) {
    const failed = await fetchKey(real.client, locked, 'wrong');
    t.is(failed.status, 401);
    t.is(failed.body.code, 'AUTHENTICATION_FAILED');
  }
  const refused = await timed(() => fetchKey(real.client, locked, 'right-password-1'));
  // The strictest applied limit is the username's: 5 attempts in a 30-minute window.
  assertRefused(t, refused, 5, 1800);
  t.true(Number(header(refused, 'x-ratelimit-reset')) > nowSeconds() + 1700);
  assertRefused(t, await timed(() => fetchKey(real.client, locked.toUpperCase(), 'right-password-1')), 5, 1800);
  const fine = await fetchKey(real.client, other, 'right-password-2');
  t.is(fine.status, 200);
  t.is(fine.body.email, other);
});

test.serial('a right password clears the failed logins before it', async (t) => {
  const { real } = t.context;
  const email = await withPassword(real, 'forgetful', 'right-password-3');
  for (let i = 0; i < 4; i++) t.is((await fetchKey(real.client, email, 'wrong')).status, 401);
  t.is((await fetchKey(real.client, email, 'right-password-3')).status, 200);
  for (let i = 0; i < 5; i++) t.is((await fetchKey(real.client, email, 'wrong')).status, 401);
  assertRefused(t, await timed(() => fetchKey(real.client, email, 'right-password-3')), 5, 1800);
});

// Last on this server: it uses up the address's unauthenticated requests, logins included.
test.serial('with the defaults, an address gets 100 unauthenticated requests a minute', async (t) => {
  const { real } = t.context;
  const replies = await untilRefused(() => real.client.get('/server_settings'), 150);
  assertCountdown(t, replies.slice(0, -1), 100);
  assertRefused(t, replies.at(-1)!, 100, 60);
  const login = await timed(() => real.client.post('/dev_fetch_api_key', { username: 'othello@zulip.com' }));
  assertRefused(t, login, 100, 60);
});

test('X-RateLimit-Remaining counts down to a 429, and refused requests stay refused', async (t) => {
  const { hamlet } = t.context.on;
  const replies: Timed[] = [];
  for (let i = 0; i < 6; i++) replies.push(await timed(() => hamlet.get('/users/me')));
  t.deepEqual(
    replies.slice(0, 5).map((r) => header(r, 'x-ratelimit-remaining')),
    ['4', '3', '2', '1', '0'],
  );
  assertCountdown(t, replies.slice(0, 5), 5);
  assertRefused(t, replies[5]!, 5, 60);
  const send = () => hamlet.post('/messages', { type: 'stream', to: 'Denmark', topic: 't', content: 'x' });
  assertRefused(t, await timed(send), 5, 60);
});

test('each user has a bucket of their own', async (t) => {
  const { othello, cordelia } = t.context.on;
  const spent = await untilRefused(() => othello.get('/users/me'), 10);
  t.is(spent.length, 6);
  assertRefused(t, spent.at(-1)!, 5, 60);
  const first = await cordelia.get('/users/me');
  t.is(first.status, 200);
  t.is(header(first, 'x-ratelimit-remaining'), '4');
});

test('an error response after the limit was applied carries the headers too', async (t) => {
  const { shiva } = t.context.on;
  const bad = await shiva.get('/users/ten');
  t.is(bad.status, 400);
  t.is(header(bad, 'x-ratelimit-limit'), '5');
  t.is(header(bad, 'x-ratelimit-remaining'), '4');
});

test.serial('unauthenticated requests are limited per address, authenticated ones per user', async (t) => {
  const { small, on } = t.context;
  const replies = await untilRefused(() => small.client.get('/server_settings'), 30);
  assertCountdown(t, replies.slice(0, -1), 12);
  assertRefused(t, replies.at(-1)!, 12, 60);
  const me = await on.iago.get('/users/me');
  t.is(me.status, 200);
  t.is(header(me, 'x-ratelimit-limit'), '5');
});

test('a window ends: after retry-after seconds the whole limit is back', async (t) => {
  const hamlet = await t.context.short.login('hamlet@zulip.com');
  // However slow the machine, the last of these is a refusal inside some window.
  const replies = await untilRefused(() => hamlet.get('/users/me'), 50);
  const refused = replies.at(-1)!;
  assertRefused(t, refused, 3, 2);
  await sleep(Math.ceil((refused.body['retry-after'] as number) * 1000) + 100);
  const again = await hamlet.get('/users/me');
  t.is(again.status, 200);
  t.is(header(again, 'x-ratelimit-remaining'), '2');
});

test('the limits are read from the environment, and RATE_LIMITING=false turns them off', async (t) => {
  t.timeout(STARTUP_MS);
  t.like(DEFAULTS, {
    user: { limit: 200, windowMs: 60_000 },
    ip: { limit: 100, windowMs: 60_000 },
    login: { limit: 5, windowMs: 1_800_000 },
  });
  const env = {
    RATE_LIMIT_USER: '7',
    RATE_LIMIT_IP: '9',
    RATE_LIMIT_WINDOW_SECONDS: '2',
    RATE_LIMIT_LOGIN_FAILURES: '3',
  };
  t.like(loadConfig(env).rateLimits, {
    user: { limit: 7, windowMs: 2000 },
    ip: { limit: 9, windowMs: 2000 },
    login: { limit: 3, windowMs: 1_800_000 },
  });
  t.throws(() => loadConfig({ RATE_LIMIT_USER: '0' }), { message: /RATE_LIMIT_USER/ });
  t.throws(() => loadConfig({ RATE_LIMITING: 'maybe' }), { message: /RATE_LIMITING/ });

  const off = await TestServer.start({ rateLimits: loadConfig({ RATE_LIMITING: 'false' }).rateLimits });
  try {
    const hamlet = await off.login('hamlet@zulip.com');
    const me = await hamlet.get('/users/me');
    t.is(me.status, 200);
    t.is(header(me, 'x-ratelimit-limit'), null);
    t.is(header(await off.client.get('/server_settings'), 'x-ratelimit-remaining'), null);
  } finally {
    await off.stop();
  }
});
