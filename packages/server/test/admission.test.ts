import anyTest, { type TestFn } from 'ava';
import type { ChatClient } from '@chat/testkit';
import { DEFAULT_ADMISSION, SHED_FLOOR } from '@chat/edge';
import { basicAuth, rawConnection } from './raw-http.js';
import { TestServer } from './support.js';

/**
 * Admission control through the whole server: with one slot for work, a
 * request that holds it (its body never comes) makes the next one wait its
 * short while and be refused 503 OVERLOADED with Retry-After, while the
 * holder is still held, so the refusal did not wait for any deadline. Long
 * polls do not take the slot. Once the holder is gone, the server serves
 * again. (The rules themselves: packages/edge/test/admission.test.ts.)
 * Embedded only (scripts/test.sh): a cluster spreads a client's requests
 * over its edges, each counting its own, so the held slot and the refused
 * request would be on different edges.
 */
const test = anyTest as TestFn<{ server: TestServer; hamlet: ChatClient }>;

test.before(async (t) => {
  t.context.server = await TestServer.start({
    // Lag and slowness are the machine's, not this test's: only the in-flight bound may refuse here.
    admission: { ...DEFAULT_ADMISSION, maxInFlight: 1, maxQueued: 8, maxWaitMs: 100, maxLagMs: 60_000, targetMs: 0 },
  });
  t.context.hamlet = await t.context.server.login('hamlet@zulip.com');
});
test.after.always(async (t) => {
  await t.context.server?.stop();
});

async function inFlight(hamlet: ChatClient): Promise<number> {
  const text = await (await hamlet.fetch('GET', '//metrics')).text();
  return Number(/^chat_admission_in_flight (\d+)$/m.exec(text)?.[1]);
}

test('a server held past its bound refuses fast with 503 and Retry-After, and serves again afterwards', async (t) => {
  const { server, hamlet } = t.context;
  // A long poll is no work: it does not take the one slot.
  const { queue_id } = (await hamlet.post<{ queue_id: string }>('/register', { event_types: '["message"]' })).body;
  const poll = hamlet.get('/events', { queue_id, last_event_id: -1 });

  const raw = await rawConnection(server.server.url);
  const { email, apiKey } = hamlet.credentials!;
  raw.socket.write(
    'POST /api/v1/messages HTTP/1.1\r\nHost: localhost\r\n' +
      `Authorization: ${basicAuth(email, apiKey)}\r\n` +
      'Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\n',
  );
  for (let i = 0; i < 200 && (await inFlight(hamlet)) !== 1; i++) await new Promise((r) => setTimeout(r, 25));
  t.is(await inFlight(hamlet), 1, 'the held request takes the slot');

  const refused = await hamlet.get('/users/me');
  t.is(refused.status, 503);
  t.deepEqual(refused.body, {
    result: 'error',
    code: 'OVERLOADED',
    msg: 'The server is overloaded; try again later',
    'retry-after': 1,
  });
  t.is(refused.headers.get('retry-after'), '1');
  // Refused while the holder is still held: nothing waited for it to end or for a deadline.
  t.is(await inFlight(hamlet), 1);
  t.is(raw.socket.bytesRead, 0, 'the held request has no answer yet');

  raw.socket.destroy();
  for (let i = 0; i < 200 && (await inFlight(hamlet)) !== 0; i++) await new Promise((r) => setTimeout(r, 25));
  const served = await hamlet.get('/users/me');
  t.is(served.status, 200);

  // The long poll was held all along, and is answered by the next event.
  t.is(
    (await hamlet.post('/messages', { type: 'stream', to: 'Verona', topic: 'admission', content: 'back' })).status,
    200,
  );
  const events = await poll;
  t.is(events.status, 200);
});

test('a route whose requests queue is refused before its caller is authenticated; other routes are served, nothing answered is lost', async (t) => {
  // Its own server: no send answered yet, so the route's floor does not raise the 50 ms target.
  const server = await TestServer.start({
    admission: { ...DEFAULT_ADMISSION, maxLagMs: 60_000, targetMs: 50, maxWaitMs: 10_000 },
  });
  t.teardown(() => server.stop());
  const hamlet = await server.login('hamlet@zulip.com');
  const metric = async (name: string) => {
    const text = await (await hamlet.fetch('GET', '//metrics')).text();
    return Number(new RegExp(`^${name} ([\\d.]+)$`, 'm').exec(text)?.[1]);
  };
  // Four sends (enough in flight to shed) whose bodies never come: each holds its place in the route.
  const { email, apiKey } = hamlet.credentials!;
  const held = await Promise.all(Array.from({ length: SHED_FLOOR }, () => rawConnection(server.server.url)));
  for (const raw of held) {
    raw.socket.write(
      'POST /api/v1/messages HTTP/1.1\r\nHost: localhost\r\n' +
        `Authorization: ${basicAuth(email, apiKey)}\r\n` +
        'Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\n',
    );
  }
  for (let i = 0; i < 400 && (await metric('chat_admission_oldest_ms')) <= 50; i++) {
    await new Promise((r) => setTimeout(r, 25));
  }
  t.true((await metric('chat_admission_oldest_ms')) > 50, 'the held sends have waited past the target');

  const checks = await metric('chat_auth_checks_total');
  const send = { type: 'stream', to: 'Verona', topic: 'admission', content: 'refused while the route queues' };
  const refused = await hamlet.post('/messages', send);
  t.is(refused.status, 503);
  t.like(refused.body, { result: 'error', code: 'OVERLOADED', 'retry-after': 1 });
  t.is(refused.headers.get('retry-after'), '1');
  t.is(await metric('chat_auth_checks_total'), checks, 'the refused request asked no credential check');
  // Another route is not behind: it is served.
  t.is((await hamlet.get('/users/me')).status, 200);

  for (const raw of held) raw.socket.destroy();
  for (let i = 0; i < 400 && (await metric('chat_admission_in_flight')) !== 0; i++) {
    await new Promise((r) => setTimeout(r, 25));
  }
  const accepted = await hamlet.post('/messages', { ...send, content: 'accepted once the route is free' });
  t.is(accepted.status, 200);
  const history = await hamlet.get<{ messages: Array<{ id: number; content: string }> }>('/messages', {
    anchor: 'newest',
    num_before: 10,
    num_after: 0,
    narrow: JSON.stringify([{ operator: 'topic', operand: 'admission' }]),
    apply_markdown: 'false',
  });
  const contents = history.body.messages.map((m) => m.content);
  t.true(contents.includes('accepted once the route is free'), 'the acknowledged send is kept');
  t.false(contents.includes('refused while the route queues'), 'the refused one was never taken');
});
