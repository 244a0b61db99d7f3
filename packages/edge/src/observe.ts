import type { Context, Next } from 'koa';
import type { Logger } from 'pino';
import type { EdgeMetrics } from './metrics.js';
import type { EdgeState } from './state.js';
import { lazyChild } from './logger.js';
import { requestUuid } from './request-id.js';
import { connectionClosed } from './pipeline.js';

const SANE_REQUEST_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** A caller's request id is kept when it is safe to log and echo; otherwise we make one. */
export function requestIdOf(header: string | undefined): string {
  return header !== undefined && SANE_REQUEST_ID.test(header) ? header : requestUuid();
}

/** A request's state before anything else ran: its id, and its logger (the user id is added once known). */
export function requestState(logger: Logger, header: string | undefined): EdgeState {
  const requestId = requestIdOf(header);
  return { requestId, log: lazyChild(logger, { requestId }) };
}

/**
 * The outermost middleware: gives the request its id and logger, then, once
 * the error funnel below it has settled the response, writes the one log line
 * of the request and its metrics.
 */
export function observe(logger: Logger, metrics: EdgeMetrics) {
  return async (ctx: Context & { state: EdgeState }, next: Next): Promise<void> => {
    const started = process.hrtime.bigint();
    // Handlers get `ctx.state.log`, which gains the user id once known (both
    // children made only if something logs through them); the request line
    // names the request and the user itself.
    Object.assign(ctx.state, requestState(logger, ctx.get('X-Request-Id') || undefined));
    ctx.set('X-Request-Id', ctx.state.requestId);
    try {
      await next();
    } finally {
      const { method, path, status } = ctx;
      requestDone(logger, metrics, ctx.state, { method, path, status, started, closed: connectionClosed(ctx.req) });
    }
  };
}

/**
 * The one log line of a request and its metrics. The line names the route
 * template and the user, never headers or parameters. A 5xx is an error,
 * unless the request's connection had `closed` before its answer: nobody
 * got it (its client left, or a stopping server closed it).
 */
export function requestDone(
  logger: Logger,
  metrics: EdgeMetrics,
  state: EdgeState,
  request: { method: string; path: string; status: number; started: bigint; closed?: boolean },
): void {
  const { method, status } = request;
  const seconds = Number(process.hrtime.bigint() - request.started) / 1e9;
  const route = state.route ?? 'unmatched';
  metrics.requests.inc({ method, route, status: String(status) });
  metrics.duration.observe({ method, route }, seconds);
  // Built only when it is written (at `warn` it is not: most servers' level).
  const level = status >= 500 && !request.closed ? 'error' : 'info';
  if (!logger.isLevelEnabled(level)) return;
  const line = {
    requestId: state.requestId,
    method,
    route,
    ...(state.secretPath ? {} : { path: request.path }),
    status,
    durationMs: Math.round(seconds * 1e6) / 1e3,
    userId: state.principal?.user_id,
    ...(request.closed && { closed: true }),
  };
  logger[level](line, 'request');
}
