import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';

/**
 * The floor of a long poll (poll-floor.ts): a bare `node:http` server, or a
 * bare Koa one (`koa` as the first argument), that holds every
 * `GET /api/v1/events` until the harness says `release`, then answers each
 * with the same small JSON reply (one message event, about the size of the
 * chat server's). It checks the Basic credentials' form, as the Koa baseline
 * does, and nothing else. Told by IPC, it says `held` each time every poll
 * came back.
 */
const koa = process.argv[2] === 'koa';
const expected = Number(process.argv[3]);
const reply = JSON.stringify({
  result: 'success',
  msg: '',
  events: [
    {
      id: 0,
      type: 'message',
      message: {
        id: 1,
        sender_id: 2,
        content: '<p>nonce-floor hello everyone, this is a message of a usual length</p>',
        recipient_id: 3,
        timestamp: 1764230000,
        client: 'bench',
        subject: 'topic 1',
        topic_links: [],
        is_me_message: false,
        reactions: [],
        submessages: [],
        sender_full_name: 'User 2',
        sender_email: 'user2@example.com',
        sender_realm_str: 'zulip',
        display_recipient: 'fanout',
        type: 'stream',
        stream_id: 3,
        avatar_url: null,
        content_type: 'text/html',
      },
      flags: [],
    },
  ],
  queue_id: 'floor',
});

let held: Array<() => void> = [];

function authorized(header: string | undefined): boolean {
  const [scheme, token] = (header ?? '').split(' ');
  if (scheme !== 'Basic' || !token) return false;
  return Buffer.from(token, 'base64').toString().indexOf(':') > 0;
}

function hold(answer: () => void) {
  held.push(answer);
  if (held.length === expected) process.send!({ held: held.length });
}

process.on('message', (m: { release?: boolean }) => {
  if (!m.release) return;
  const answers = held;
  held = [];
  for (const answer of answers) answer();
});

let server: http.Server;
if (koa) {
  const app = new Koa();
  app.use(async (ctx) => {
    if (ctx.path !== '/api/v1/events' || !authorized(ctx.get('authorization'))) {
      ctx.status = 401;
      return;
    }
    await new Promise<void>((resolve) => hold(resolve));
    ctx.type = 'application/json';
    ctx.body = reply;
  });
  server = http.createServer(app.callback());
} else {
  server = http.createServer((req, res) => {
    if (!req.url?.startsWith('/api/v1/events') || !authorized(req.headers.authorization)) {
      res.writeHead(401).end();
      return;
    }
    hold(() => res.writeHead(200, { 'content-type': 'application/json' }).end(reply));
  });
}
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
