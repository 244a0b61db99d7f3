import anyTest, { type TestFn } from 'ava';
import type { ChatClient } from '@chat/testkit';
import { loadConfig } from '../src/index.js';
import { basicAuth, parseResponse, rawConnection, trickle } from './raw-http.js';
import { TestServer } from './support.js';

/**
 * Size limits and slow clients through the whole server: bodies over
 * MAX_BODY_BYTES and files over the upload limit are 413 envelopes, heads
 * over Node's 16 KB are 431 envelopes, and a client that stalls in its
 * headers or its body is answered 408 and disconnected once
 * HEADERS_TIMEOUT_MS or REQUEST_TIMEOUT_MS has passed. After each, the
 * server goes on serving. (uploads.test.ts covers one oversize file, by
 * multipart and by tus; packages/edge/test the parser's limits alone.)
 */
const BODY_LIMIT = 64 * 1024;
const HEADERS_TIMEOUT_MS = 1500;
const REQUEST_TIMEOUT_MS = 3000;
// Node sweeps for expired requests every quarter of the shorter timeout; the rest is a busy machine.
const SLACK_MS = 10_000;

const test = anyTest as TestFn<{ server: TestServer; hamlet: ChatClient }>;

test.before(async (t) => {
  t.context.server = await TestServer.start({
    maxBodyBytes: BODY_LIMIT,
    maxFileUploadSizeMib: 1,
    headersTimeoutMs: HEADERS_TIMEOUT_MS,
    requestTimeoutMs: REQUEST_TIMEOUT_MS,
  });
  t.context.hamlet = await t.context.server.login('hamlet@zulip.com');
});
test.after.always(async (t) => {
  await t.context.server?.stop();
});

const tooLarge = (limit: number) => ({
  result: 'error',
  code: 'REQUEST_TOO_LARGE',
  msg: `Request is larger than the limit of ${limit} bytes`,
});

async function stillServes(hamlet: ChatClient): Promise<number> {
  return (await hamlet.get('/users/me')).status;
}

test('a form, JSON or multipart body over MAX_BODY_BYTES is a 413 envelope, and the server goes on', async (t) => {
  const { hamlet } = t.context;
  const content = 'x'.repeat(BODY_LIMIT + 1);
  const form = await hamlet.post('/messages', { type: 'stream', to: 'Verona', topic: 'big', content });
  t.is(form.status, 413);
  t.deepEqual(form.body, tooLarge(BODY_LIMIT));

  const json = await hamlet.fetch('POST', '/messages', {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'stream', to: 'Verona', topic: 'big', content }),
  });
  t.is(json.status, 413);
  t.deepEqual(await json.json(), tooLarge(BODY_LIMIT));

  const multipart = new FormData();
  for (const [name, value] of Object.entries({ type: 'stream', to: 'Verona', topic: 'big', content })) {
    multipart.set(name, value);
  }
  const fields = await hamlet.fetch('POST', '/messages', { body: multipart });
  t.is(fields.status, 413);
  t.like(await fields.json(), { result: 'error', code: 'REQUEST_TOO_LARGE' });
  t.is(await stillServes(hamlet), 200);
});

test('a body declared larger than the limit is refused before it is sent, and the connection closed', async (t) => {
  const { server, hamlet } = t.context;
  const raw = await rawConnection(server.server.url);
  const { email, apiKey } = hamlet.credentials!;
  raw.socket.write(
    'POST /api/v1/messages HTTP/1.1\r\nHost: localhost\r\n' +
      `Authorization: ${basicAuth(email, apiKey)}\r\n` +
      `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${10 * BODY_LIMIT}\r\n\r\n`,
  );
  // No byte of the body was sent: the answer comes from the declared length alone.
  const { text } = await raw.closed;
  const response = parseResponse(text);
  t.is(response.status, 413);
  t.deepEqual(response.body, tooLarge(BODY_LIMIT));
  t.regex(response.headers, /^connection: close$/im);
  t.is(await stillServes(hamlet), 200);
});

test('a chunked body that grows past the limit is answered 413', async (t) => {
  const { server, hamlet } = t.context;
  const raw = await rawConnection(server.server.url);
  const { email, apiKey } = hamlet.credentials!;
  raw.socket.write(
    'POST /api/v1/messages HTTP/1.1\r\nHost: localhost\r\n' +
      `Authorization: ${basicAuth(email, apiKey)}\r\n` +
      'Content-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n',
  );
  const chunk = 'x'.repeat(8192);
  raw.socket.write(`${chunk.length.toString(16)}\r\ncontent=${chunk.slice(8)}\r\n`);
  for (let sent = chunk.length; sent <= 2 * BODY_LIMIT; sent += chunk.length) {
    raw.socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
  }
  const response = parseResponse(await raw.received(/\r\n\r\n\{.*\}$/s));
  t.is(response.status, 413);
  t.deepEqual(response.body, tooLarge(BODY_LIMIT));
  raw.socket.destroy();
  t.is(await stillServes(hamlet), 200);
});

test('files over the upload limit together are a 413, though each alone fits', async (t) => {
  const { hamlet } = t.context;
  const half = new Uint8Array(600 * 1024);
  const reply = await hamlet.upload('/user_uploads', [
    { name: 'a.bin', data: half },
    { name: 'b.bin', data: half },
  ]);
  t.is(reply.status, 413);
  t.like(reply.body, { result: 'error', code: 'REQUEST_TOO_LARGE' });
  const one = await hamlet.upload('/user_uploads', [{ name: 'a.bin', data: half }]);
  t.is(one.status, 200);
});

test('request heads over 16 KB are answered 431 with an envelope, and the server goes on', async (t) => {
  const { hamlet } = t.context;
  const header = await hamlet.fetch('GET', '/users/me', { headers: { 'x-padding': 'a'.repeat(20_000) } });
  t.is(header.status, 431);
  t.deepEqual(await header.json(), {
    result: 'error',
    msg: 'Request header fields too large',
    code: 'BAD_REQUEST',
  });
  const url = await hamlet.get('/messages', {
    anchor: 'newest',
    narrow: JSON.stringify([['search', 'a'.repeat(20_000)]]),
  });
  t.is(url.status, 431);
  t.is(await stillServes(hamlet), 200);
});

test('a client sending its headers byte by byte is answered 408 and disconnected after HEADERS_TIMEOUT_MS', async (t) => {
  t.timeout(HEADERS_TIMEOUT_MS + SLACK_MS + 10_000);
  const { server, hamlet } = t.context;
  const raw = await rawConnection(server.server.url);
  raw.socket.write('GET /api/v1/users/me HTTP/1.1\r\nHost: localhost\r\n');
  // A header that never ends, one byte at a time, each well within any idle timeout.
  trickle(raw.socket, 'X-Slow: abcdefghijklmnopqrstuvwxyz', 100);
  const { text, afterMs } = await raw.closed;
  t.true(afterMs >= HEADERS_TIMEOUT_MS, `closed after ${afterMs} ms`);
  t.true(afterMs < HEADERS_TIMEOUT_MS + SLACK_MS, `closed after ${afterMs} ms`);
  const response = parseResponse(text);
  t.is(response.status, 408);
  t.deepEqual(response.body, { result: 'error', msg: 'Request timed out', code: 'BAD_REQUEST' });
  t.is(await stillServes(hamlet), 200);
});

test('a client that never finishes its body is answered 408 and disconnected after REQUEST_TIMEOUT_MS', async (t) => {
  t.timeout(REQUEST_TIMEOUT_MS + SLACK_MS + 10_000);
  const { server, hamlet } = t.context;
  const raw = await rawConnection(server.server.url);
  const { email, apiKey } = hamlet.credentials!;
  raw.socket.write(
    'POST /api/v1/messages HTTP/1.1\r\nHost: localhost\r\n' +
      `Authorization: ${basicAuth(email, apiKey)}\r\n` +
      'Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\ntype=stream&to=Verona',
  );
  trickle(raw.socket, '&topic=slow', 100);
  const { text, afterMs } = await raw.closed;
  t.true(afterMs >= REQUEST_TIMEOUT_MS, `closed after ${afterMs} ms`);
  t.true(afterMs < REQUEST_TIMEOUT_MS + SLACK_MS, `closed after ${afterMs} ms`);
  const response = parseResponse(text);
  t.is(response.status, 408);
  t.like(response.body, { result: 'error', code: 'BAD_REQUEST' });
  t.is(await stillServes(hamlet), 200);
});

test('the timeouts come from REQUEST_TIMEOUT_MS and HEADERS_TIMEOUT_MS, headers no longer than the request', (t) => {
  const config = loadConfig({ REQUEST_TIMEOUT_MS: '5000', HEADERS_TIMEOUT_MS: '1000' });
  t.like(config, { requestTimeoutMs: 5000, headersTimeoutMs: 1000 });
  t.like(loadConfig({}), { requestTimeoutMs: 60_000, headersTimeoutMs: 20_000 });
  t.throws(() => loadConfig({ REQUEST_TIMEOUT_MS: '1000', HEADERS_TIMEOUT_MS: '5000' }), {
    message: /HEADERS_TIMEOUT_MS/,
  });
});
