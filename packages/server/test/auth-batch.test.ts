import { typedClient, type ActorClient } from '@chat/runtime';
import { authenticateWith, type ApiOptions } from '@chat/api';
import { createLogger } from '@chat/edge';
import { withServer } from './context.js';
import { metricsAt } from './support.js';

/**
 * Every request's credentials are checked by the realm's one actor, so that
 * a new key or a deactivation counts at once. When many requests arrive
 * together (long polls returning), the edge sends their checks in one
 * message, and each request still gets its own answer.
 */
const test = withServer(['hamlet', 'othello']);

test('three hundred requests at once each get their own answer', async (t) => {
  const { server, hamlet, othello } = t.context;
  // Straight to one edge, whose counters are read: a cluster's test client spreads requests over its edges.
  const { url } = server.server;
  const basic = (email: string, key: string) => `Basic ${Buffer.from(`${email}:${key}`).toString('base64')}`;
  const headers = [hamlet, othello].map((c) => basic(c.credentials!.email, c.credentials!.apiKey));
  headers.push(basic('hamlet@zulip.com', 'x'.repeat(32)));
  const counter = async (name: string) => (await metricsAt(url)).get(name) ?? NaN;
  await hamlet.post('/drafts', { drafts: JSON.stringify([{ type: '', to: [], topic: '', content: 'mine' }]) });
  const before = [await counter('chat_auth_checks_total'), await counter('chat_auth_messages_total')];
  // GET /drafts answers from the caller's own UserActor: whose drafts come back says who was authenticated.
  const replies = await Promise.all(
    Array.from({ length: 300 }, async (_, i) => {
      const response = await fetch(`${url}/api/v1/drafts`, { headers: { authorization: headers[i % 3]! } });
      return { status: response.status, body: (await response.json()) as { drafts?: unknown[]; code?: string } };
    }),
  );
  const checks = (await counter('chat_auth_checks_total')) - before[0]!;
  const messages = (await counter('chat_auth_messages_total')) - before[1]!;
  replies.forEach((reply, i) => {
    if (i % 3 === 2) t.like(reply, { status: 401, body: { code: 'INVALID_API_KEY' } });
    else t.is(reply.body.drafts?.length, i % 3 === 0 ? 1 : 0, `request ${i}: ${JSON.stringify(reply.body)}`);
  });
  // How many messages carried them depends on how the requests fell into turns of the event loop.
  t.log(`${checks} checks in ${messages} messages to the realm`);
  t.is(checks, 300);
});

test('checks that arrive while one message is on its way go together in the next', async (t) => {
  const { server, hamlet, othello } = t.context;
  const { node } = server.server;
  const sizes: number[] = [];
  // The realm's link, slowed down: as when it is busy with thousands of returning polls.
  const slow: ActorClient = typedClient({
    ask: async (to, body, opts) => {
      if (body.type === 'realm.authenticateMany') sizes.push((body.credentials as unknown[]).length);
      await new Promise((resolve) => setTimeout(resolve, 50));
      return node.actors.ask(to, body, opts);
    },
    tell: (to, body, opts) => node.actors.tell(to, body, opts),
    fanout: (type, keys, body, opts) => node.actors.fanout(type, keys, body, opts),
    fanoutAsk: (type, keys, body, opts) => node.actors.fanoutAsk(type, keys, body, opts),
  });
  const authenticate = authenticateWith({ realmOf: () => 'zulip' } as unknown as ApiOptions);
  const req = {
    request: { host: '127.0.0.1', ip: '127.0.0.1', userAgent: 'test' },
    requestId: 'auth-batch',
    log: createLogger({ level: 'silent' }),
    actors: slow,
  };
  const people = [
    { ...hamlet.credentials!, user_id: 10 },
    { ...othello.credentials!, user_id: 12 },
    { email: 'hamlet@zulip.com', apiKey: 'x'.repeat(32), user_id: undefined },
  ];
  const results = await Promise.allSettled(Array.from({ length: 30 }, (_, i) => authenticate(people[i % 3]!, req)));
  results.forEach((result, i) => {
    const expected = people[i % 3]!.user_id;
    if (expected === undefined) t.like(result, { status: 'rejected', reason: { code: 'INVALID_API_KEY' } });
    else t.like(result, { status: 'fulfilled', value: { user_id: expected } });
  });
  // The first went alone; the 29 that came while it was on its way, in one message.
  t.deepEqual(sizes, [1, 29]);
});

test('a message of checks that hangs does not hold up the checks after it', async (t) => {
  const { server, hamlet } = t.context;
  const { node } = server.server;
  let first = true;
  // The first message hangs, as one in flight to a host that just died waits out its timeout.
  const hanging: ActorClient = typedClient({
    ask: async (to, body, opts) => {
      if (first) {
        first = false;
        await new Promise((resolve) => setTimeout(resolve, 3_000));
      }
      return node.actors.ask(to, body, opts);
    },
    tell: (to, body, opts) => node.actors.tell(to, body, opts),
    fanout: (type, keys, body, opts) => node.actors.fanout(type, keys, body, opts),
    fanoutAsk: (type, keys, body, opts) => node.actors.fanoutAsk(type, keys, body, opts),
  });
  const authenticate = authenticateWith({ realmOf: () => 'zulip' } as unknown as ApiOptions);
  const req = {
    request: { host: '127.0.0.1', ip: '127.0.0.1', userAgent: 'test' },
    requestId: 'auth-hang',
    log: createLogger({ level: 'silent' }),
    actors: hanging,
  };
  const order: string[] = [];
  const check = (name: string) => authenticate(hamlet.credentials!, req).then(() => order.push(name));
  const stuck = check('first');
  await new Promise((resolve) => setImmediate(resolve));
  await check('second');
  await stuck;
  t.deepEqual(order, ['second', 'first']);
});
