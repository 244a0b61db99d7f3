import type { Context, Next } from 'koa';
import { ChatError, isChatError } from '@chat/protocol';
import type { EdgeState } from './state.js';

/**
 * A known path asked with a method it does not serve. Not a `ChatError`
 * because no Zulip code names it; the funnel answers 405 with an `Allow`
 * header, as the reference server does.
 */
export class MethodNotAllowed extends Error {
  override readonly name = 'MethodNotAllowed';
  constructor(readonly allowed: readonly string[]) {
    super('Method Not Allowed');
  }
}

// Fields of the envelope itself; a code's extra fields never replace them.
const RESERVED = new Set(['result', 'msg', 'code']);

/**
 * The one place where a failure becomes a response. Everything the handlers,
 * the authentication and the parsers throw ends here: a `ChatError` keeps its
 * code, status and extra fields; anything else is a fault of ours, logged
 * with its stack and the request id, and the client only learns that it
 * happened.
 */
export async function errorFunnel(ctx: Context & { state: EdgeState }, next: Next): Promise<void> {
  try {
    await next();
  } catch (err) {
    renderError(ctx, err);
  }
}

function renderError(ctx: Context & { state: EdgeState }, err: unknown): void {
  if (ctx.headerSent) {
    // Too late for an envelope; the client sees a cut response.
    ctx.state.log.error({ err }, 'error after the response started');
    return;
  }
  if (isChatError(err)) {
    if (err.status >= 500) ctx.state.log.warn({ code: err.code, error: err.message }, 'request failed');
    send(ctx, err.status, envelope(err));
    if (err.code === 'UNAUTHORIZED') ctx.set('WWW-Authenticate', 'Basic realm="zulip"');
    // The unread rest of an oversized body must not be taken for the next request.
    if (err.code === 'REQUEST_TOO_LARGE') ctx.set('Connection', 'close');
    const retryAfter = err.extra['retry-after'];
    if (typeof retryAfter === 'number') ctx.set('Retry-After', String(Math.ceil(retryAfter)));
    return;
  }
  if (err instanceof MethodNotAllowed) {
    send(ctx, 405, { result: 'error', msg: err.message, code: 'BAD_REQUEST', allowed_methods: err.allowed });
    ctx.set('Allow', err.allowed.join(', '));
    return;
  }
  ctx.state.log.error({ err }, 'unhandled error');
  send(ctx, 500, { result: 'error', msg: 'Internal server error', code: 'INTERNAL_SERVER_ERROR' });
}

function envelope(err: ChatError): Record<string, unknown> {
  const body: Record<string, unknown> = { result: 'error', msg: err.message, code: err.envelopeCode };
  for (const [key, value] of Object.entries(err.extra)) {
    if (!RESERVED.has(key)) body[key] = value;
  }
  return body;
}

function send(ctx: Context, status: number, body: Record<string, unknown>): void {
  // Headers a handler set before failing (e.g. a Location) belong to the
  // response it did not produce; the request id stays.
  const requestId = ctx.response.get('X-Request-Id');
  for (const name of ctx.res.getHeaderNames()) ctx.remove(name);
  if (requestId !== '') ctx.set('X-Request-Id', requestId);
  ctx.status = status;
  ctx.body = body;
  ctx.type = 'application/json';
}
