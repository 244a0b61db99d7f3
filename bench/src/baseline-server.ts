import { timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { koaBody } from 'koa-body';

/**
 * The baseline: the least a server can do for POST /api/v1/messages. It
 * parses the same form body, checks the same basic credentials against an
 * in-memory map and answers the same envelope, with no storage, rendering or
 * events. Run as its own process, like the server, so that both compete with
 * the harness for the same cores in the same way.
 */
const [credentialsFile] = process.argv.slice(2);
const keys = new Map<string, Buffer>(
  (JSON.parse(readFileSync(credentialsFile!, 'utf8')) as Array<[string, string]>).map(([email, key]) => [
    email.toLowerCase(),
    Buffer.from(key),
  ]),
);
const CHANNEL_TYPES = new Set(['stream', 'channel', 'direct', 'private']);
let nextId = 0;

function authorized(header: string): boolean {
  const [scheme, token] = header.split(' ');
  if (scheme?.toLowerCase() !== 'basic' || !token) return false;
  const decoded = Buffer.from(token, 'base64').toString();
  const colon = decoded.indexOf(':');
  const expected = keys.get(decoded.slice(0, colon).toLowerCase());
  const given = Buffer.from(decoded.slice(colon + 1));
  return colon > 0 && expected !== undefined && expected.length === given.length && timingSafeEqual(expected, given);
}

const app = new Koa();
app.use(koaBody());
app.use(async (ctx) => {
  if (ctx.method !== 'POST' || ctx.path !== '/api/v1/messages') {
    ctx.status = 404;
    ctx.body = { result: 'error', msg: 'Not Found', code: 'BAD_REQUEST' };
    return;
  }
  if (!authorized(ctx.get('authorization'))) {
    ctx.status = 401;
    ctx.body = { result: 'error', msg: 'Invalid API key', code: 'INVALID_API_KEY' };
    return;
  }
  const body = (ctx.request.body ?? {}) as Record<string, string | undefined>;
  const to = body.to?.startsWith('[') ? (JSON.parse(body.to) as unknown[]) : body.to;
  if (!CHANNEL_TYPES.has(body.type ?? '') || !to || !body.content?.trim()) {
    ctx.status = 400;
    ctx.body = { result: 'error', msg: 'Invalid message', code: 'BAD_REQUEST' };
    return;
  }
  ctx.body = { result: 'success', msg: '', id: ++nextId };
});

const server = app.listen(0, '127.0.0.1', () => {
  console.log(`Baseline at http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
// As the real server (packages/server/src/server.ts): idle keep-alive connections survive between steps.
server.keepAliveTimeout = 65_000;
process.on('SIGTERM', () => server.close(() => process.exit(0)));
