import type { IncomingMessage } from 'node:http';
import type { Context } from 'koa';
import { withOptions, type ActorClient } from '@chat/runtime';
import type { Principal } from '@chat/protocol';
import { principalFor, type Authenticate, type AuthRequest, type SessionAuthenticate } from './auth.js';
import { checkCsrf, CSRF_COOKIE, CSRF_HEADER, parseCookies, SESSION_COOKIE } from './csrf.js';
import { bodyFields, formFields, removeFiles, uploadedFiles, type BodyParsers } from './body.js';
import { readParams } from './params.js';
import type { Admission } from './admission.js';
import type { RateLimiter } from './rate-limit.js';
import type { HandlerResult, RequestInfo, Route, UploadedFile } from './route.js';
import type { EdgeState } from './state.js';
import { jsonBody } from './raw-json.js';
import { lazyChild } from './logger.js';

export interface PipelineDeps {
  actors: ActorClient;
  authenticate: Authenticate;
  parsers: BodyParsers;
  /** Undefined when rate limiting is off. */
  rateLimiter?: RateLimiter;
  /** Browser sessions, for the routes under /json; without it, /json takes API keys only. */
  session?: SessionAuthenticate;
  /** Refuses a route whose answers queue (`slowRoute`), before anything is spent on it. */
  admission?: Admission;
}

/** Methods that change nothing, so need no CSRF token. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

type EdgeContext = Context & { state: EdgeState; params?: Record<string, string> };

/** A request as a route's pipeline reads it, from Koa's context or straight from node:http (`lean.ts`). */
export interface RouteRequest {
  state: EdgeState;
  method: string;
  /** A header's value, undefined when absent or empty. */
  header(name: string): string | undefined;
  info: RequestInfo;
  pathParams: Record<string, string>;
  query: Record<string, unknown>;
  /** Reads the body, once the caller is known (the files' temporary paths are removed once answered). */
  readBody(): Promise<{ fields: () => Record<string, unknown>; files: UploadedFile[]; paths: string[] }>;
  appendHeader(name: string, value: string): void;
  /** True once the request's connection has closed: nobody reads the answer. */
  closed(): boolean;
}

/**
 * One route's request, in the reference server's order: authenticate (so an
 * anonymous caller learns nothing about parameters), read the body, read and
 * validate the parameters, run the handler, render the success envelope.
 * Failures are thrown to the error funnel.
 */
export function routeMiddleware(route: Route, deps: PipelineDeps, prefix: '/api/v1' | '/json' = '/api/v1') {
  const parse = route.files ? deps.parsers.upload : deps.parsers.standard;
  const answer = routeAnswer(route, deps, prefix);
  return async (ctx: EdgeContext, next: () => Promise<unknown>): Promise<void> => {
    if (route.pathMatch && !route.pathMatch(ctx.params ?? {})) {
      await next();
      return;
    }
    const body = await answer({
      state: ctx.state,
      method: ctx.method,
      header: (name) => ctx.get(name) || undefined,
      info: requestInfo(ctx),
      pathParams: ctx.params ?? {},
      query: formFields(ctx.query),
      readBody: async () => {
        await parse(ctx, async () => {});
        return { fields: () => bodyFields(ctx), ...uploadedFiles(ctx.request.files) };
      },
      appendHeader: (name, value) => ctx.append(name, value),
      closed: () => connectionClosed(ctx.req),
    });
    ctx.status = 200;
    // Koa sends an object as JSON; JSON already written in bytes keeps the same type.
    if (Buffer.isBuffer(body)) ctx.type = 'json';
    ctx.body = body;
  };
}

/** A route's success body (an object, or JSON in bytes when a field is raw), or the failure thrown. */
export function routeAnswer(route: Route, deps: PipelineDeps, prefix: '/api/v1' | '/json') {
  const template = `${prefix}${route.path}`;
  return async (req: RouteRequest): Promise<Record<string, unknown> | Buffer> => {
    const { state } = req;
    const { requestId, log } = state;
    state.route = template;
    deps.admission?.admitRoute(template);
    const actors = scopedActors(deps.actors, requestId, state.deadline);
    const request = req.info;
    const authRequest = { request, requestId, log, actors };
    const principal =
      prefix === '/json'
        ? await sessionPrincipal(route, req, deps, authRequest)
        : await principalFor(route.auth, req.header('Authorization'), deps.authenticate, authRequest);
    if (principal) {
      state.principal = principal;
      state.log = lazyChild(log, { userId: principal.user_id });
    }
    // After authentication, so that the count is the account's, and before the body is read.
    if (deps.rateLimiter) await deps.rateLimiter.request(state, principal, request.ip);
    const body = await req.readBody();
    // Without files to remove once answered, this function ends here and the handler's promise is answered
    // on: a long poll's wait then keeps no frame of it alive.
    if (body.paths.length === 0) return answerOf(route, deps, req, principal, actors, body);
    try {
      return await answerOf(route, deps, req, principal, actors, body);
    } finally {
      await removeFiles(body.paths);
    }
  };
}

/** Reads the parameters and runs the handler: its success body, or a promise of it. */
function answerOf(
  route: Route,
  deps: PipelineDeps,
  req: RouteRequest,
  principal: Principal | undefined,
  actors: ActorClient,
  { fields, files }: { fields: () => Record<string, unknown>; files: UploadedFile[] },
): Promise<Record<string, unknown> | Buffer> | Record<string, unknown> | Buffer {
  const { state } = req;
  const { params, ignored } = readParams(route.compiled, route.aliases, {
    path: req.pathParams,
    body: fields(),
    query: req.query,
  });
  // Files sent to a route that takes none are unknown parameters like any other.
  if (!route.files) {
    for (const { field } of files) if (!ignored.includes(field)) ignored.push(field);
    ignored.sort();
  }
  const result = route.handler({
    params,
    principal,
    actors,
    requestId: state.requestId,
    log: state.log,
    request: req.info,
    files: route.files ? files : [],
    appendHeader: req.appendHeader,
    closed: req.closed,
    ...(deps.rateLimiter && { limits: deps.rateLimiter.forRequest(state) }),
  });
  return result instanceof Promise ? result.then((r) => success(r, ignored)) : success(result, ignored);
}

const success = (result: HandlerResult | void, ignored: string[]) =>
  jsonBody({
    result: 'success',
    msg: '',
    ...result,
    ...(ignored.length > 0 ? { ignored_parameters_unsupported: ignored } : {}),
  });

/**
 * The caller of a route under /json, as the original's `rest_dispatch`
 * finds it: API credentials when the request carries them, else the
 * browser session, whose writes must carry the CSRF token of its cookie.
 */
async function sessionPrincipal(route: Route, req: RouteRequest, deps: PipelineDeps, auth: AuthRequest) {
  const header = req.header('Authorization');
  if (route.auth === 'none' || header !== undefined || !deps.session) {
    return principalFor(route.auth, header, deps.authenticate, auth);
  }
  const cookies = parseCookies(req.header('Cookie'));
  const key = cookies.get(SESSION_COOKIE);
  const principal = key === undefined ? undefined : await deps.session(key, auth);
  if (!principal) return principalFor(route.auth, undefined, deps.authenticate, auth);
  if (!SAFE_METHODS.has(req.method)) checkCsrf(cookies.get(CSRF_COOKIE), req.header(CSRF_HEADER), 'header');
  return principal;
}

/** Whether a request's connection has closed (its client left, or the server closed it): its answer goes nowhere. */
export const connectionClosed = (req: IncomingMessage): boolean => req.socket?.destroyed === true;

function requestInfo(ctx: Context): RequestInfo {
  return { host: ctx.host, ip: ctx.ip, userAgent: ctx.get('User-Agent') };
}

/**
 * Every ask of this request carries its id, so the actors' logs lead back to
 * it, and, once admission gave the request a deadline, ends by then: an
 * actor drops a message whose deadline passed before it was taken, so no
 * work is done for a client the edge has stopped waiting for. (A long poll
 * sets its own, longer, timeout.)
 */
export function scopedActors(actors: ActorClient, requestId: string, deadline?: number): ActorClient {
  if (deadline === undefined) return withOptions(actors, () => ({ requestId }));
  return withOptions(actors, () => ({ requestId, timeoutMs: Math.max(1, deadline - Date.now()) }));
}
