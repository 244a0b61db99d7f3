import type { Context, Next } from 'koa';
import { ChatError, isChatError } from '@chat/protocol';
import type { Logger } from 'pino';
import type { EdgeState } from './state.js';
import { connectionClosed } from './pipeline.js';

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
  const answer = errorAnswer(err, ctx.state.log, connectionClosed(ctx.req));
  // Headers a handler set before failing (e.g. a Location) belong to the
  // response it did not produce; the request id stays.
  const requestId = ctx.response.get('X-Request-Id');
  for (const name of ctx.res.getHeaderNames()) ctx.remove(name);
  if (requestId !== '') ctx.set('X-Request-Id', requestId);
  ctx.status = answer.status;
  ctx.body = answer.body;
  ctx.type = 'application/json';
  for (const [name, value] of answer.headers) ctx.set(name, value);
}

/** A failure's response: status, the Zulip envelope, and the headers that go with it. */
export interface ErrorAnswer {
  status: number;
  body: Record<string, unknown>;
  headers: Array<[string, string]>;
}

/**
 * What a failure answers (and logs: a fault of ours with its stack, a 5xx refusal as a warning unless
 * the request's connection has `closed`: nobody got it, as when a stopping server closed it).
 */
export function errorAnswer(err: unknown, log: Logger, closed = false): ErrorAnswer {
  if (isChatError(err)) {
    if (err.status >= 500 && !closed) log.warn({ code: err.code, error: err.message }, 'request failed');
    const headers: Array<[string, string]> = [];
    if (err.code === 'UNAUTHORIZED') headers.push(['WWW-Authenticate', 'Basic realm="zulip"']);
    // The unread rest of an oversized body must not be taken for the next request.
    if (err.code === 'REQUEST_TOO_LARGE') headers.push(['Connection', 'close']);
    const retryAfter = err.extra['retry-after'];
    if (typeof retryAfter === 'number') headers.push(['Retry-After', String(Math.ceil(retryAfter))]);
    return { status: err.status, body: envelope(err), headers };
  }
  if (err instanceof MethodNotAllowed) {
    const body = { result: 'error', msg: err.message, code: 'BAD_REQUEST', allowed_methods: err.allowed };
    return { status: 405, body, headers: [['Allow', err.allowed.join(', ')]] };
  }
  log.error({ err }, 'unhandled error');
  return {
    status: 500,
    body: { result: 'error', msg: 'Internal server error', code: 'INTERNAL_SERVER_ERROR' },
    headers: [],
  };
}

function envelope(err: ChatError): Record<string, unknown> {
  const body: Record<string, unknown> = { result: 'error', msg: err.message, code: err.envelopeCode };
  for (const [key, value] of Object.entries(err.extra)) {
    if (!RESERVED.has(key)) body[key] = value;
  }
  return body;
}
