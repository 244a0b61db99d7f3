import type { Static, TObject } from '@sinclair/typebox';
import type { Principal } from '@chat/protocol';
import type { ActorClient } from '@chat/runtime';
import type { Logger } from 'pino';
import { compileParams, type CompiledParams } from './params.js';
import type { RequestLimits } from './rate-limit.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Who may call a route: `required` answers 401 without credentials, `optional`
 * runs anonymously without them (but still rejects wrong ones), `none` never
 * looks at the Authorization header (e.g. `fetch_api_key`, where the
 * credentials are parameters).
 */
export type AuthMode = 'required' | 'optional' | 'none';

export type { Principal };

/** Facts about the HTTP request that some operations need (realm by host, client by user agent). */
export interface RequestInfo {
  host: string;
  ip: string;
  userAgent: string;
}

/**
 * A file of a multipart body. Its bytes live in a temporary file that the
 * edge deletes once the handler has settled, so a handler must finish
 * reading (e.g. into the FileStore) before it returns.
 */
export interface UploadedFile {
  /** The form field that carried it; clients do not agree on one name. */
  field: string;
  filename: string;
  contentType: string;
  size: number;
  read(): AsyncIterable<Uint8Array>;
}

export interface HandlerContext<P, A extends AuthMode = AuthMode> {
  params: P;
  /** Always set on `auth: 'required'` routes, so handlers need no check. */
  principal: A extends 'required' ? Principal : Principal | undefined;
  /** Asks made through it carry this request's id, for the actors' logs. */
  actors: ActorClient;
  requestId: string;
  log: Logger;
  request: RequestInfo;
  /** Empty unless the route sets `files: true`. */
  files: UploadedFile[];
  /** Limits a handler applies itself (failed logins); undefined when rate limiting is off. */
  limits?: RequestLimits;
  /** Adds a response header (a session's `Set-Cookie`). */
  appendHeader(name: string, value: string): void;
  /** True once the request's connection has closed (its client left, or the server stopping closed it). */
  closed(): boolean;
}

/** What a handler gives back: the fields merged into `{result: 'success', msg: ''}`. */
export type HandlerResult = Record<string, unknown>;

export interface RouteSpec<P extends TObject, A extends AuthMode, R extends TObject> {
  method: HttpMethod;
  /** Zulip style, relative to /api/v1: `/users/{user_id}/status`. */
  path: string;
  auth: A;
  /** Every parameter of the operation (path, query and body) by its wire name. */
  params: P;
  summary: string;
  description: string;
  tags?: string[];
  /** Fields of the success body besides `result` and `msg`; documents the route. */
  response?: R;
  /** Accept uploaded files (the upload size limit applies instead of the body limit). */
  files?: boolean;
  /** Other wire names accepted for a parameter, e.g. `{ topic: ['subject'] }`. */
  aliases?: { [K in keyof Static<P>]?: string[] };
  /**
   * Serves only paths whose parameters pass; others go on to the next route
   * of the same shape (`/users/{email}` takes addresses, `/users/{user_id}`
   * the rest). Such a route must be listed before the other.
   */
  pathMatch?: (path: Record<string, string>) => boolean;
  /**
   * Served straight from node:http, without Koa, when the request is a plain
   * GET of the route's path (`lean.ts`): the long poll, which every delivered
   * event costs once. Otherwise, and always in the description, a route like any other.
   */
  lean?: boolean;
  handler: (ctx: HandlerContext<Static<P>, A>) => Promise<Static<R> | void> | Static<R> | void;
}

/** A route with its types erased, ready to be mounted; built only by `defineRoute`. */
export interface Route {
  readonly method: HttpMethod;
  readonly path: string;
  readonly auth: AuthMode;
  readonly params: TObject;
  readonly summary: string;
  readonly description: string;
  readonly tags: readonly string[];
  readonly response: TObject | undefined;
  readonly files: boolean;
  readonly aliases: Readonly<Record<string, readonly string[]>>;
  /** The names in `{...}` segments of the path, in order. */
  readonly pathParams: readonly string[];
  readonly pathMatch: ((path: Record<string, string>) => boolean) | undefined;
  readonly lean: boolean;
  readonly compiled: CompiledParams;
  /** Its fields (none when it gives nothing back), or a promise of them. */
  readonly handler: (
    ctx: HandlerContext<Record<string, unknown>>,
  ) => Promise<HandlerResult | void> | HandlerResult | void;
}

const PATH_PARAM = /\{([^}]*)\}/g;
const PARAM_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Declares one operation. The schema is compiled here, once, so that a
 * mistake in a route (a path parameter missing from the schema, a bad path)
 * fails at startup rather than on the first request.
 */
export function defineRoute<P extends TObject, A extends AuthMode, R extends TObject = TObject>(
  spec: RouteSpec<P, A, R>,
): Route {
  if (!spec.path.startsWith('/')) throw new Error(`Route path must start with '/': ${spec.path}`);
  const pathParams = [...spec.path.matchAll(PATH_PARAM)].map((m) => m[1] ?? '');
  for (const name of pathParams) {
    if (!PARAM_NAME.test(name)) throw new Error(`Bad path parameter '${name}' in ${spec.path}`);
    if (!Object.hasOwn(spec.params.properties, name)) {
      throw new Error(`Path parameter '${name}' of ${spec.method} ${spec.path} is not in its params schema`);
    }
  }
  const aliases: Record<string, readonly string[]> = {};
  for (const [name, names] of Object.entries(spec.aliases ?? {})) {
    if (Array.isArray(names)) aliases[name] = names.map(String);
  }
  const handler = spec.handler;
  return {
    method: spec.method,
    path: spec.path,
    auth: spec.auth,
    params: spec.params,
    summary: spec.summary,
    description: spec.description,
    tags: spec.tags ?? [],
    response: spec.response,
    files: spec.files ?? false,
    aliases,
    pathParams,
    pathMatch: spec.pathMatch,
    lean: spec.lean ?? false,
    compiled: compileParams(spec.params),
    // The pipeline validated `params` against this very schema and resolved the
    // principal according to `auth`, which is what makes this cast sound.
    // No async wrapper of its own: it would stay suspended around every request (each long poll's).
    handler: handler as Route['handler'],
  };
}

/** `/users/{user_id}` in the router's syntax: `/users/:user_id`. */
export const routerPath = (path: string) => path.replace(PATH_PARAM, (_, name: string) => `:${name}`);

/** Static segments before parameters: `/users/me` must win over `/users/{user_id}`. */
export function bySpecificity(a: Route, b: Route): number {
  const sa = a.path.split('/');
  const sb = b.path.split('/');
  for (let i = 0; i < Math.min(sa.length, sb.length); i++) {
    const pa = sa[i]!.startsWith('{');
    const pb = sb[i]!.startsWith('{');
    if (pa !== pb) return pa ? 1 : -1;
  }
  return 0;
}
