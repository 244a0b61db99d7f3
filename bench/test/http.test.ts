import test from 'ava';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { Http } from '../src/http.js';

/**
 * The harness's HTTP client (http.ts, http-connection.ts) against real
 * servers on loopback: `node:http` ones, and raw `node:net` ones where the
 * test needs bytes `node:http` would not send (a response split anywhere,
 * `connection: close` on a socket the server leaves open).
 */

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

/** A node:http server that counts its connections; its handler sees the whole request body. */
async function server(handler: Handler, setup?: (server: Server) => void) {
  const sockets: net.Socket[] = [];
  const s = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => handler(req, res, body));
  });
  s.on('connection', (socket: net.Socket) => sockets.push(socket));
  setup?.(s);
  s.listen(0, '127.0.0.1');
  await once(s, 'listening');
  const url = `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
  return { url, sockets, stop: () => (s.closeAllConnections(), s.close()) };
}

/** A node:net server that answers each request (whatever its bytes) with `respond`. */
async function rawServer(respond: (socket: net.Socket) => void) {
  const sockets: net.Socket[] = [];
  const s = net.createServer((socket) => {
    sockets.push(socket);
    let head = '';
    socket.on('data', (data: Buffer) => {
      head += data.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      head = '';
      respond(socket);
    });
    socket.on('error', () => {});
  });
  s.listen(0, '127.0.0.1');
  await once(s, 'listening');
  const url = `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
  return {
    url,
    sockets,
    stop: () => {
      for (const socket of sockets) socket.destroy();
      s.close();
    },
  };
}

const alice = { email: 'alice@example.com', apiKey: 'key-1' };
const json = (res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}) => {
  const text = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
};

test('a content-length answer: status, JSON body, bytes; the request carries method, path, query, form and credentials', async (t) => {
  const s = await server((req, res, body) =>
    json(res, 200, { result: 'success', method: req.method, url: req.url, body, auth: req.headers.authorization }),
  );
  const http = new Http(`${s.url}/prefix/`);
  const post = await http.request('POST', '/messages', { to: [1, 2], content: 'hé & co' }, alice);
  t.is(post.status, 200);
  t.deepEqual(post.body, {
    result: 'success',
    method: 'POST',
    url: '/prefix/api/v1/messages',
    body: 'to=%5B1%2C2%5D&content=h%C3%A9+%26+co',
    auth: `Basic ${Buffer.from('alice@example.com:key-1').toString('base64')}`,
  });
  t.is(post.bytes, Buffer.byteLength(JSON.stringify(post.body)));
  t.true(post.end > 0);
  const get = await http.request('GET', '/events', { queue_id: 'q', last_event_id: -1, unset: undefined });
  t.like(get.body, { method: 'GET', url: '/prefix/api/v1/events?queue_id=q&last_event_id=-1', body: '' });
  t.is(get.body.auth, undefined);
  http.close();
  s.stop();
});

test('a chunked answer is read whole', async (t) => {
  const s = await server((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }); // no length: node:http sends it chunked
    res.write('{"result":');
    setTimeout(() => res.write('"success",'), 5);
    setTimeout(() => res.end('"n":12345}'), 10);
  });
  const http = new Http(s.url);
  const answer = await http.request('GET', '/x', {});
  t.is(answer.status, 200);
  t.deepEqual(answer.body, { result: 'success', n: 12345 });
  t.is(answer.bytes, '{"result":"success","n":12345}'.length);
  http.close();
  s.stop();
});

test('an answer split over many TCP chunks anywhere (head, chunk sizes, body) is read whole, twice on one connection', async (t) => {
  const body = JSON.stringify({ result: 'success', text: 'x'.repeat(3000) });
  const chunked = `${(200).toString(16)}\r\n${body.slice(0, 200)}\r\n${(body.length - 200).toString(16)}\r\n${body.slice(200)}\r\n0\r\n\r\n`;
  const answers = [
    `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
    `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n${chunked}`,
  ];
  let n = 0;
  const s = await rawServer((socket) => {
    const bytes = Buffer.from(answers[n++ % 2]!);
    socket.setNoDelay(true);
    // A few bytes at a time, each its own write after a pause: the client sees many small data events.
    let at = 0;
    const next = () => {
      if (at >= bytes.length) return;
      const size = at < 200 ? 3 : 997;
      socket.write(bytes.subarray(at, at + size));
      at += size;
      setTimeout(next, 1);
    };
    next();
  });
  const http = new Http(s.url);
  for (let i = 0; i < 2; i++) {
    const answer = await http.request('GET', '/x', {});
    t.is(answer.status, 200);
    t.is(answer.bytes, body.length);
    t.deepEqual(answer.body, JSON.parse(body));
  }
  t.is(s.sockets.length, 1);
  http.close();
  s.stop();
});

test('sequential requests reuse one keep-alive connection', async (t) => {
  const s = await server((_req, res) => json(res, 200, { result: 'success' }));
  const http = new Http(s.url);
  for (let i = 0; i < 5; i++) t.is((await http.request('POST', '/x', { i }, alice)).status, 200);
  t.is(s.sockets.length, 1);
  http.close();
  s.stop();
});

test('concurrent requests each get a connection (no cap), and come back to the pool', async (t) => {
  const N = 40;
  const held: ServerResponse[] = [];
  const s = await server((_req, res) => {
    held.push(res);
    // Answers only when all N are in at once (or after a while, so that a capped client fails instead of hanging).
    if (held.length === N) for (const r of held.splice(0)) json(r, 200, { result: 'success' });
  });
  const timer = setTimeout(() => {
    for (const r of held.splice(0)) json(r, 200, { result: 'success' });
  }, 2000);
  const http = new Http(s.url);
  const answers = await Promise.all(Array.from({ length: N }, (_, i) => http.request('GET', '/x', { i })));
  clearTimeout(timer);
  t.true(answers.every((a) => a.status === 200));
  t.is(s.sockets.length, N);
  // Back in the pool: as many again at once need no new connection.
  setTimeout(() => {
    for (const r of held.splice(0)) json(r, 200, { result: 'success' });
  }, 2000);
  await Promise.all(Array.from({ length: N }, (_, i) => http.request('GET', '/x', { i })));
  t.is(s.sockets.length, N);
  http.close();
  s.stop();
});

test('a 503 answer carries its Retry-After', async (t) => {
  const s = await server((_req, res) => json(res, 503, { result: 'error', msg: 'busy' }, { 'retry-after': '7' }));
  const http = new Http(s.url);
  const answer = await http.request('POST', '/x', {});
  t.is(answer.status, 503);
  t.is(answer.retryAfter, '7');
  t.deepEqual(answer.body, { result: 'error', msg: 'busy' });
  http.close();
  s.stop();
});

for (const [name, head] of [
  ['connection: close', 'HTTP/1.1 200 OK\r\nconnection: close'],
  ['HTTP/1.0 without keep-alive', 'HTTP/1.0 200 OK'],
] as const) {
  test(`an answer with ${name} closes its socket; the next request gets a new one`, async (t) => {
    const body = '{"result":"success"}';
    // The server leaves its side open: only the client closes.
    const s = await rawServer((socket) => socket.write(`${head}\r\ncontent-length: ${body.length}\r\n\r\n${body}`));
    const http = new Http(s.url);
    t.is((await http.request('GET', '/x', {})).status, 200);
    await once(s.sockets[0]!, 'close');
    t.is((await http.request('GET', '/x', {})).status, 200);
    t.is(s.sockets.length, 2);
    http.close();
    s.stop();
  });
}

test('a socket the server closed while idle leaves the pool: the next request succeeds on a new one', async (t) => {
  const s = await server((_req, res) => json(res, 200, { result: 'success' }));
  const http = new Http(s.url);
  t.is((await http.request('GET', '/x', {})).status, 200);
  const closed = once(s.sockets[0]!, 'close');
  s.sockets[0]!.destroy();
  await closed;
  await new Promise((resolve) => setTimeout(resolve, 50)); // the FIN reaches the client
  const answer = await http.request('GET', '/x', {});
  t.is(answer.status, 200, JSON.stringify(answer.body));
  t.is(s.sockets.length, 2);
  http.close();
  s.stop();
});

test("a socket idle longer than the server's Keep-Alive timeout (less a second) is not reused", async (t) => {
  // keepAliveTimeout 1 s: node:http says `Keep-Alive: timeout=1`, so the client keeps it for 0 ms.
  const s = await server(
    (_req, res) => json(res, 200, { result: 'success' }),
    (server) => (server.keepAliveTimeout = 1000),
  );
  const http = new Http(s.url);
  t.is((await http.request('GET', '/x', {})).status, 200);
  await new Promise((resolve) => setTimeout(resolve, 20));
  t.is((await http.request('GET', '/x', {})).status, 200);
  t.is(s.sockets.length, 2);
  http.close();
  s.stop();
});

test('no bytes for the timeout answers status 0 and drops the socket', async (t) => {
  const s = await server(() => {}); // never answers
  const http = new Http(s.url);
  const answer = await http.request('GET', '/events', {}, alice, 100);
  t.is(answer.status, 0);
  t.deepEqual(answer.body, { result: 'error', msg: 'timed out after 100 ms' });
  await once(s.sockets[0]!, 'close');
  http.close();
  s.stop();
});

test('close() answers a held request with status 0', async (t) => {
  const s = await server(() => {}); // holds every request, as a long poll
  const http = new Http(s.url);
  const held = http.request('GET', '/events', {}, alice);
  while (s.sockets.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  http.close();
  const answer = await held;
  t.is(answer.status, 0);
  t.is(answer.body.result, 'error');
  s.stop();
});

test('a closed connection or a refused one answers status 0, never hangs', async (t) => {
  const s = await rawServer((socket) => socket.end('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n{"result"'));
  const http = new Http(s.url);
  const cut = await http.request('GET', '/x', {});
  t.is(cut.status, 0);
  t.is(cut.body.result, 'error');
  s.stop();
  const refused = await new Http(s.url).request('GET', '/x', {});
  t.is(refused.status, 0);
  t.regex(String(refused.body.msg), /ECONNREFUSED/);
});

test('a body that is not JSON answers the usual error body', async (t) => {
  const s = await server((_req, res) => {
    res.writeHead(502, { 'content-type': 'text/html', 'content-length': 11 });
    res.end('<h1>no</h1>');
  });
  const http = new Http(s.url);
  const answer = await http.request('GET', '/x', {});
  t.is(answer.status, 502);
  t.deepEqual(answer.body, { result: 'error', msg: 'not JSON: <h1>no</h1>' });
  t.is(answer.bytes, 11);
  http.close();
  s.stop();
});
