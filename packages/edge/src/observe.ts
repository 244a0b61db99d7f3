import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';
import type { EdgeMetrics } from './metrics.js';
import type { EdgeState } from './state.js';
import { lazyChild } from './logger.js';

const SANE_REQUEST_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** A caller's request id is kept when it is safe to log and echo; otherwise we make one. */
export function requestIdOf(header: string | undefined): string {
  return header !== undefined && SANE_REQUEST_ID.test(header) ? header : randomUUID();
}

/**
 * The outermost middleware: gives the request its id and logger, then, once
 * the error funnel below it has settled the response, writes the one log line
 * of the request and its metrics. The log line names the route template and
 * the user, never headers or parameters.
 */
export function observe(logger: Logger, metrics: EdgeMetrics) {
  return async (ctx: Context & { state: EdgeState }, next: Next): Promise<void> => {
    const started = process.hrtime.bigint();
    const requestId = requestIdOf(ctx.get('X-Request-Id') || undefined);
    ctx.set('X-Request-Id', requestId);
    ctx.state.requestId = requestId;
    // Handlers get `ctx.state.log`, which gains the user id once known (both
    // children made only if something logs through them); the request line
    // names the request and the user itself.
    ctx.state.log = lazyChild(logger, { requestId });
    try {
      await next();
    } finally {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = ctx.state.route ?? 'unmatched';
      const status = ctx.status;
      metrics.requests.inc({ method: ctx.method, route, status: String(status) });
      metrics.duration.observe({ method: ctx.method, route }, seconds);
      const line = {
        requestId,
        method: ctx.method,
        route,
        ...(ctx.state.secretPath ? {} : { path: ctx.path }),
        status,
        durationMs: Math.round(seconds * 1e6) / 1e3,
        userId: ctx.state.principal?.user_id,
      };
      if (status >= 500) logger.error(line, 'request');
      else logger.info(line, 'request');
    }
  };
}
