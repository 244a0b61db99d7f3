import type { Context } from 'koa';
import { withOptions, type ActorClient } from '@chat/runtime';
import { principalFor, type Authenticate, type AuthRequest, type SessionAuthenticate } from './auth.js';
import { checkCsrf, CSRF_COOKIE, CSRF_HEADER, parseCookies, SESSION_COOKIE } from './csrf.js';
import { bodyFields, formFields, removeFiles, uploadedFiles, type BodyParsers } from './body.js';
import { readParams } from './params.js';
import type { Admission } from './admission.js';
import type { RateLimiter } from './rate-limit.js';
import type { RequestInfo, Route } from './route.js';
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

/**
 * One route's request, in the reference server's order: authenticate (so an
 * anonymous caller learns nothing about parameters), read the body, read and
 * validate the parameters, run the handler, render the success envelope.
 * Failures are thrown to the error funnel.
 */
export function routeMiddleware(route: Route, deps: PipelineDeps, prefix: '/api/v1' | '/json' = '/api/v1') {
  const template = `${prefix}${route.path}`;
  const parse = route.files ? deps.parsers.upload : deps.parsers.standard;
  return async (ctx: EdgeContext, next: () => Promise<unknown>): Promise<void> => {
    if (route.pathMatch && !route.pathMatch(ctx.params ?? {})) {
      await next();
      return;
    }
    const { requestId, log } = ctx.state;
    ctx.state.route = template;
    deps.admission?.admitRoute(template);
    const actors = scopedActors(deps.actors, requestId, ctx.state.deadline);
    const request = requestInfo(ctx);
    const authRequest = { request, requestId, log, actors };
    const principal =
      prefix === '/json'
        ? await sessionPrincipal(route, ctx, deps, authRequest)
        : await principalFor(route.auth, ctx.get('Authorization') || undefined, deps.authenticate, authRequest);
    if (principal) {
      ctx.state.principal = principal;
      ctx.state.log = lazyChild(log, { userId: principal.user_id });
    }
    // After authentication, so that the count is the account's, and before the body is read.
    await deps.rateLimiter?.request(ctx.state, principal, ctx.ip);
    await parse(ctx, async () => {});
    const { files, paths } = uploadedFiles(ctx.request.files);
    try {
      const { params, ignored } = readParams(route.compiled, route.aliases, {
        path: ctx.params ?? {},
        body: bodyFields(ctx),
        query: formFields(ctx.query),
      });
      // Files sent to a route that takes none are unknown parameters like any other.
      if (!route.files) {
        for (const { field } of files) if (!ignored.includes(field)) ignored.push(field);
        ignored.sort();
      }
      const result = await route.handler({
        params,
        principal,
        actors,
        requestId,
        log: ctx.state.log,
        request,
        files: route.files ? files : [],
        appendHeader: (name, value) => ctx.append(name, value),
        ...(deps.rateLimiter && { limits: deps.rateLimiter.forRequest(ctx.state) }),
      });
      ctx.status = 200;
      const body = jsonBody({
        result: 'success',
        msg: '',
        ...result,
        ...(ignored.length > 0 ? { ignored_parameters_unsupported: ignored } : {}),
      });
      // Koa sends an object as JSON; text already JSON keeps the same type.
      if (typeof body === 'string') ctx.type = 'json';
      ctx.body = body;
    } finally {
      await removeFiles(paths);
    }
  };
}

/**
 * The caller of a route under /json, as the original's `rest_dispatch`
 * finds it: API credentials when the request carries them, else the
 * browser session, whose writes must carry the CSRF token of its cookie.
 */
async function sessionPrincipal(route: Route, ctx: EdgeContext, deps: PipelineDeps, req: AuthRequest) {
  const header = ctx.get('Authorization') || undefined;
  if (route.auth === 'none' || header !== undefined || !deps.session) {
    return principalFor(route.auth, header, deps.authenticate, req);
  }
  const cookies = parseCookies(ctx.get('Cookie') || undefined);
  const key = cookies.get(SESSION_COOKIE);
  const principal = key === undefined ? undefined : await deps.session(key, req);
  if (!principal) return principalFor(route.auth, undefined, deps.authenticate, req);
  if (!SAFE_METHODS.has(ctx.method)) checkCsrf(cookies.get(CSRF_COOKIE), ctx.get(CSRF_HEADER) || undefined, 'header');
  return principal;
}

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
