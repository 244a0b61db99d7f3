import type { Context } from 'koa';
import { withOptions, type ActorClient } from '@chat/runtime';
import { principalFor, type Authenticate } from './auth.js';
import { bodyFields, formFields, removeFiles, uploadedFiles, type BodyParsers } from './body.js';
import { readParams } from './params.js';
import type { RateLimiter } from './rate-limit.js';
import type { RequestInfo, Route } from './route.js';
import type { EdgeState } from './state.js';

export interface PipelineDeps {
  actors: ActorClient;
  authenticate: Authenticate;
  parsers: BodyParsers;
  /** Undefined when rate limiting is off. */
  rateLimiter?: RateLimiter;
}

type EdgeContext = Context & { state: EdgeState; params?: Record<string, string> };

/**
 * One route's request, in the reference server's order: authenticate (so an
 * anonymous caller learns nothing about parameters), read the body, read and
 * validate the parameters, run the handler, render the success envelope.
 * Failures are thrown to the error funnel.
 */
export function routeMiddleware(route: Route, deps: PipelineDeps) {
  const template = `/api/v1${route.path}`;
  const parse = route.files ? deps.parsers.upload : deps.parsers.standard;
  return async (ctx: EdgeContext, next: () => Promise<unknown>): Promise<void> => {
    if (route.pathMatch && !route.pathMatch(ctx.params ?? {})) {
      await next();
      return;
    }
    const { requestId, log } = ctx.state;
    ctx.state.route = template;
    const actors = scopedActors(deps.actors, requestId);
    const request = requestInfo(ctx);
    const principal = await principalFor(route.auth, ctx.get('Authorization') || undefined, deps.authenticate, {
      request,
      requestId,
      log,
      actors,
    });
    if (principal) {
      ctx.state.principal = principal;
      ctx.state.log = log.child({ userId: principal.user_id });
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
        ...(deps.rateLimiter && { limits: deps.rateLimiter.forRequest(ctx.state) }),
      });
      ctx.status = 200;
      ctx.body = {
        result: 'success',
        msg: '',
        ...result,
        ...(ignored.length > 0 ? { ignored_parameters_unsupported: ignored } : {}),
      };
    } finally {
      await removeFiles(paths);
    }
  };
}

function requestInfo(ctx: Context): RequestInfo {
  return { host: ctx.host, ip: ctx.ip, userAgent: ctx.get('User-Agent') };
}

/** Every ask of this request carries its id, so the actors' logs lead back to it. */
export function scopedActors(actors: ActorClient, requestId: string): ActorClient {
  return withOptions(actors, () => ({ requestId }));
}
