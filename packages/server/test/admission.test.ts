import anyTest, { type TestFn } from 'ava';
import type { ChatClient } from '@chat/testkit';
import { DEFAULT_ADMISSION } from '@chat/edge';
import { basicAuth, rawConnection } from './raw-http.js';
import { metricsAt, TestServer } from './support.js';

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

async function inFlight(server: TestServer): Promise<number> {
  return (await metricsAt(server.server.url)).get('chat_admission_in_flight') ?? NaN;
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
  for (let i = 0; i < 200 && (await inFlight(server)) !== 1; i++) await new Promise((r) => setTimeout(r, 25));
  t.is(await inFlight(server), 1, 'the held request takes the slot');

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
  t.is(await inFlight(server), 1);
  t.is(raw.socket.bytesRead, 0, 'the held request has no answer yet');

  raw.socket.destroy();
  for (let i = 0; i < 200 && (await inFlight(server)) !== 0; i++) await new Promise((r) => setTimeout(r, 25));
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
