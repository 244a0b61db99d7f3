import type { IncomingMessage, ServerResponse } from 'node:http';
import Koa from 'koa';
import { Router, type RouterContext } from '@koa/router';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { ActorClient } from '@chat/runtime';
import { ChatError } from '@chat/protocol';
import type { Authenticate, SessionAuthenticate } from './auth.js';
import { createBodyParsers, type BodyLimits } from './body.js';
import type { Admission } from './admission.js';
import { MethodNotAllowed, errorFunnel } from './errors.js';
import { withRedaction } from './logger.js';
import { edgeMetrics } from './metrics.js';
import { leanListener, type LeanListener } from './lean.js';
import { observe } from './observe.js';
import { buildOpenApi, type OpenApiInfo } from './openapi.js';
import { routeMiddleware } from './pipeline.js';
import { rateLimitHeaders, type RateLimiter } from './rate-limit.js';
import { bySpecificity, routerPath, type Route } from './route.js';
import type { EdgeState } from './state.js';

export interface EdgeAppOptions {
  routes: readonly Route[];
  actors: ActorClient;
  authenticate: Authenticate;
  logger: Logger;
  /** The edge registers its metrics here and serves the whole registry at GET /metrics. */
  metrics: Registry;
  limits: BodyLimits;
  /** Describes the API in GET /api/v1/openapi.json. */
  info?: OpenApiInfo;
  /** Trust X-Forwarded-* (client address, host) because a load balancer sets them. */
  proxy?: boolean;
  /**
   * Handlers that answer bytes rather than envelopes (downloads, tus). They
   * run inside the request log, metrics and error funnel, ahead of the routes,
   * each only for paths that begin with one of its `under` (see `mounted`).
   */
  raw?: RawHandler[];
  /** Applies the API rate limits to the routes; without one, nothing is limited. */
  rateLimiter?: RateLimiter;
  /** Browser sessions: every route is also served under /json, where a session authenticates. */
  session?: SessionAuthenticate;
  /** Refuses, fast, what the edge cannot take in time; without it, everything is taken. */
  admission?: Admission;
}

/** A raw handler and the path prefixes (case as written) outside which it only passes the request on. */
export interface RawHandler {
  under: string[];
  handle: (ctx: Koa.ParameterizedContext<EdgeState>, next: Koa.Next) => Promise<unknown>;
}

const DEFAULT_INFO: OpenApiInfo = { title: 'Team chat API', version: '1.0.0' };

/**
 * Koa, except that `callback()` first offers each request to the lean
 * routes (`lean.ts`: the long poll), which take it without Koa.
 */
class EdgeApp extends Koa<EdgeState> {
  lean: LeanListener | undefined;

  override callback() {
    const koa = super.callback();
    const lean = this.lean;
    if (!lean) return koa;
    return (req: Parameters<typeof koa>[0], res: Parameters<typeof koa>[1]) =>
      req.httpVersionMajor < 2 && lean(req as IncomingMessage, res as ServerResponse)
        ? Promise.resolve()
        : koa(req, res);
  }
}

/**
 * The HTTP edge as a Koa application: request ids, the request log and
 * metrics, the single error funnel, then the routes. The caller owns the
 * HTTP server (`http.createServer(app.callback())`).
 */
export function createEdgeApp(options: EdgeAppOptions): Koa<EdgeState> {
  const logger = withRedaction(options.logger);
  const app = new EdgeApp({ proxy: options.proxy ?? false });
  // Nothing escapes the funnel; Koa's own report would print to stderr.
  app.silent = true;
  app.on('error', (err: unknown) => logger.error({ err }, 'koa error'));

  const router = new RouteGroups();
  const deps = {
    actors: options.actors,
    authenticate: options.authenticate,
    parsers: createBodyParsers(options.limits),
    ...(options.rateLimiter && { rateLimiter: options.rateLimiter }),
    ...(options.session && { session: options.session }),
    ...(options.admission && { admission: options.admission }),
  };
  const seen = new Set<string>();
  for (const route of [...options.routes].sort(bySpecificity)) {
    const key = `${route.method} ${route.path}`;
    if (seen.has(key)) throw new Error(`Route defined twice: ${key}`);
    seen.add(key);
    router.register(`/api/v1${routerPath(route.path)}`, [route.method], routeMiddleware(route, deps));
    // The original serves every operation under /json too, for its web app's session.
    router.register(`/json${routerPath(route.path)}`, [route.method], routeMiddleware(route, deps, '/json'));
  }

  // Built and serialized once: the routes do not change while the app runs.
  const openApi = JSON.stringify(buildOpenApi(options.routes, options.info ?? DEFAULT_INFO));
  router.get('/api/v1/openapi.json', (ctx) => {
    ctx.state.route = '/api/v1/openapi.json';
    ctx.type = 'application/json';
    ctx.body = openApi;
  });
  router.get('/metrics', async (ctx) => {
    ctx.state.route = '/metrics';
    ctx.body = await options.metrics.metrics();
    ctx.type = options.metrics.contentType;
  });

  const metrics = edgeMetrics(options.metrics);
  // Behind a proxy the client's address and host come from X-Forwarded-*, which only Koa reads.
  if (!app.proxy) app.lean = leanListener(options.routes, deps, logger, metrics);
  app.use(observe(logger, metrics));
  app.use(rateLimitHeaders);
  app.use(errorFunnel);
  // Before anything that costs: reading a body, authenticating, asking an actor.
  if (options.admission) app.use(options.admission.middleware());
  if (options.raw?.length) app.use(mounted(options.raw));
  app.use(router.routes());
  app.use(unmatched);
  return app;
}

/**
 * The raw handlers as one middleware that calls, in their order, only those
 * mounted under the request's path: every API request (a poll above all)
 * passed all of them before, each testing the path and passing it on.
 * A handler acts only on paths under its prefixes, so skipping it elsewhere
 * changes nothing.
 */
function mounted(raw: RawHandler[]): Koa.Middleware<EdgeState> {
  return (ctx, next) => {
    const path = ctx.path;
    const from = (i: number): Promise<unknown> => {
      for (; i < raw.length; i++) {
        const { under, handle } = raw[i]!;
        if (under.some((prefix) => path.startsWith(prefix))) return handle(ctx, () => from(i + 1));
      }
      return next();
    };
    return from(0);
  };
}

/** Reached only when no route answered: a known path with another method, or nothing at all. */
function unmatched(ctx: Koa.ParameterizedContext<EdgeState> & Partial<RouterContext<EdgeState>>): never {
  const allowed = new Set((ctx.matched ?? []).flatMap((layer) => layer.methods));
  if (allowed.size > 0) throw new MethodNotAllowed([...allowed]);
  throw new ChatError('NOT_FOUND', 'Endpoint does not exist');
}

/** `/api/v1/users/…` → `/api/v1/users`: the prefix and the first segment after it, in lower case. */
function groupOf(path: string): string {
  const lower = path.toLowerCase();
  const prefix = /^\/(api\/v1|json)(?=\/)/.exec(lower)?.[0] ?? '';
  const end = lower.indexOf('/', prefix.length + 1);
  return end < 0 ? lower : lower.slice(0, end);
}

/**
 * One router per group of paths (`groupOf`), so that a request tests the
 * patterns of its own group (a few) instead of every route's under both
 * prefixes (the router tries them one by one: 3.8% of the server's busy
 * time in a chat run). A path can only match routes of its own group, so
 * what matches, and the 405 of a known path, are as with one router.
 * Lower case because the router matches without regard to case.
 */
type Handler = Parameters<Router<EdgeState>['register']>[2];
type Routes = ReturnType<Router<EdgeState>['routes']>;

class RouteGroups {
  private readonly routers = new Map<string, Router<EdgeState>>();

  register(path: string, methods: string[], middleware: Handler): void {
    const group = groupOf(path);
    if (group.includes(':')) throw new Error(`A route's first segment must be fixed: ${path}`);
    let router = this.routers.get(group);
    if (!router) this.routers.set(group, (router = new Router<EdgeState>()));
    router.register(path, methods, middleware);
  }

  get(path: string, middleware: Handler): void {
    this.register(path, ['GET'], middleware);
  }

  routes(): Routes {
    const served = new Map([...this.routers].map(([group, router]) => [group, router.routes()]));
    return ((ctx, next) => served.get(groupOf(ctx.path))?.(ctx, next) ?? next()) as Routes;
  }
}
