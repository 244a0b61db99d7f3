import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { errorAnswer } from './errors.js';
import { formFields } from './body.js';
import type { EdgeMetrics } from './metrics.js';
import { requestDone, requestState } from './observe.js';
import { connectionClosed, routeAnswer, type PipelineDeps } from './pipeline.js';
import { limitHeaders } from './rate-limit.js';
import type { Route } from './route.js';

/** Answers a request and says true, or says false and leaves it to Koa. */
export type LeanListener = (req: IncomingMessage, res: ServerResponse) => boolean;

/**
 * The routes marked `lean` (the long poll) served straight from node:http:
 * the same steps as through Koa (request id, admission, the route's
 * authentication, rate limit, parameters and handler, the error envelope,
 * the rate-limit headers, the request's log line and metrics), shared with
 * the Koa pipeline, without Koa's context, its middleware chain and its
 * router. Only a plain GET of the exact path is taken (no body, a usual
 * Host, no fragment); anything else goes through Koa, which serves these
 * routes too.
 */
export function leanListener(
  routes: readonly Route[],
  deps: PipelineDeps,
  logger: Logger,
  metrics: EdgeMetrics,
): LeanListener | undefined {
  const served = new Map<string, ReturnType<typeof routeAnswer>>();
  for (const route of routes) {
    if (!route.lean) continue;
    if (route.method !== 'GET' || route.pathParams.length > 0 || route.files || route.pathMatch) {
      throw new Error(`A lean route is a GET of a fixed path, without files: ${route.method} ${route.path}`);
    }
    served.set(`/api/v1${route.path}`, routeAnswer(route, deps, '/api/v1'));
    served.set(`/json${route.path}`, routeAnswer(route, deps, '/json'));
  }
  if (served.size === 0) return undefined;
  return (req, res) => {
    if (req.method !== 'GET' || hasBody(req) || !usualHost(req.headers.host)) return false;
    const url = req.url ?? '';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const answer = served.get(path);
    if (!answer || url.includes('#')) return false;
    const query = q < 0 ? '' : url.slice(q + 1);
    serve(answer, req, res, path, query, deps, logger, metrics).catch((err: unknown) =>
      logger.error({ err }, 'lean request failed'),
    );
    return true;
  };
}

async function serve(
  answer: ReturnType<typeof routeAnswer>,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  query: string,
  deps: PipelineDeps,
  logger: Logger,
  metrics: EdgeMetrics,
): Promise<void> {
  const started = process.hrtime.bigint();
  const state = requestState(logger, header(req, 'x-request-id'));
  let status = 200;
  let body: string | Buffer;
  let headers: Array<[string, string]> = [];
  try {
    const done = deps.admission ? await deps.admission.admit('GET', path, state) : undefined;
    try {
      const answered = await answer({
        state,
        method: 'GET',
        header: (name) => header(req, name),
        info: {
          host: req.headers.host ?? '',
          ip: req.socket.remoteAddress ?? '',
          userAgent: header(req, 'user-agent') ?? '',
        },
        pathParams: {},
        query: formFields(searchFields(query)),
        readBody: noBody,
        appendHeader: (name, value) => headers.push([name, value]),
        closed: () => connectionClosed(req),
      });
      body = Buffer.isBuffer(answered) ? answered : JSON.stringify(answered);
    } finally {
      done?.();
    }
  } catch (err) {
    // As the error funnel: the headers of the response not produced go, the request id stays.
    const failed = errorAnswer(err, state.log, connectionClosed(req));
    status = failed.status;
    body = JSON.stringify(failed.body);
    headers = failed.headers;
  }
  requestDone(logger, metrics, state, { method: 'GET', path, status, started, closed: connectionClosed(req) });
  if (res.writableEnded || res.socket?.writable === false) return;
  // The headers written as one list (no header object kept): the id, the route's own, the limits', the body's.
  const head = ['X-Request-Id', state.requestId];
  for (const [name, value] of headers) head.push(name, value);
  for (const [name, value] of limitHeaders(state.rateLimits)) head.push(name, value);
  head.push('Content-Type', 'application/json; charset=utf-8', 'Content-Length', String(Buffer.byteLength(body)));
  res.writeHead(status, head);
  res.end(body);
}

/** A lean request's body: none (the lists are never changed: nothing is added to them). */
const NO_BODY = Promise.resolve({
  fields: () => ({}),
  files: Object.freeze([]) as never[],
  paths: Object.freeze([]) as never[],
});
const noBody = () => NO_BODY;

/** As Koa's `ctx.get`, undefined when absent or empty. */
function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name.toLowerCase()];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** A Host Koa would take as it is (no list, no user part), so the realm is found as through Koa. */
function usualHost(host: string | undefined): boolean {
  return host === undefined || !/[,@]/.test(host);
}

/** The query as Koa parses it (`URLSearchParams`, a repeated name's values in a list). */
function searchFields(query: string): Record<string, string | string[]> {
  const fields: Record<string, string | string[]> = {};
  if (query === '') return fields;
  if (!/[%+]/.test(query)) return plainFields(query, fields);
  const search = new URLSearchParams(query);
  for (const key of search.keys()) {
    if (Object.hasOwn(fields, key)) continue;
    const values = search.getAll(key);
    const value = values.length <= 1 ? values[0]! : values;
    Object.defineProperty(fields, key, { value, writable: true, enumerable: true, configurable: true });
  }
  return fields;
}

/**
 * `searchFields` of a query with nothing to decode (no `%`, no `+`: a long
 * poll's usually), without `URLSearchParams`: the same names and values.
 */
function plainFields(query: string, fields: Record<string, string | string[]>): Record<string, string | string[]> {
  for (const pair of query.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const key = eq < 0 ? pair : pair.slice(0, eq);
    const value = eq < 0 ? '' : pair.slice(eq + 1);
    const held = Object.hasOwn(fields, key) ? fields[key] : undefined;
    const now = held === undefined ? value : Array.isArray(held) ? [...held, value] : [held, value];
    Object.defineProperty(fields, key, { value: now, writable: true, enumerable: true, configurable: true });
  }
  return fields;
}
