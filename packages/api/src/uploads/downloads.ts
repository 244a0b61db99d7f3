import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import {
  basicCredentials,
  parseCookies,
  scopedActors,
  SESSION_COOKIE,
  type Authenticate,
  type AuthRequest,
} from '@chat/edge';
import { sessionAuthenticate } from '../sessions/sessions.js';
import { ChatError, isChatError, userAddress, type Principal, conversationOfKey } from '@chat/protocol';
import type { ActorClient, FileStore } from '@chat/runtime';
import { CallerContext } from '../context.js';
import type { ApiOptions } from '../options.js';
import { fileKey } from './uploads.js';

/**
 * The little of a Koa context the raw upload routes use. Structural, so
 * that @chat/api needs no Koa: the server mounts these inside the edge app,
 * behind its request log, metrics and error funnel.
 */
export interface RawContext {
  method: string;
  path: string;
  host: string;
  ip: string;
  req: IncomingMessage;
  status: number;
  body: unknown;
  state: { requestId: string; log: AuthRequest['log']; route?: string; secretPath?: boolean; principal?: Principal };
  get(field: string): string;
  set(field: string, value: string): void;
  append(field: string, value: string): void;
}
export type RawMiddleware = (ctx: RawContext, next: () => Promise<unknown>) => Promise<unknown>;

export interface RawDeps {
  options: ApiOptions;
  actors: ActorClient;
  authenticate: Authenticate;
}

/** The caller of a page: a browser session, or basic auth as the API routes take it. */
export async function pageCaller(ctx: RawContext, deps: RawDeps): Promise<Principal> {
  const key = parseCookies(ctx.get('Cookie') || undefined).get(SESSION_COOKIE);
  if (key !== undefined && ctx.get('Authorization') === '') {
    const request = { host: ctx.host, ip: ctx.ip, userAgent: ctx.get('User-Agent') };
    const actors = scopedActors(deps.actors, ctx.state.requestId);
    const principal = await sessionAuthenticate(deps.options)(key, {
      request,
      requestId: ctx.state.requestId,
      log: ctx.state.log,
      actors,
    });
    if (principal) return principal;
  }
  return (await rawCaller(ctx, deps)).principal;
}

/** Basic auth as the edge routes do it; the caller's asks carry the request id. */
export async function rawCaller(ctx: RawContext, deps: RawDeps): Promise<CallerContext> {
  const credentials = basicCredentials(ctx.get('Authorization') || undefined);
  if (!credentials) {
    throw new ChatError('UNAUTHORIZED', 'Not logged in: API authentication or user session required');
  }
  const { requestId } = ctx.state;
  const actors = scopedActors(deps.actors, requestId);
  const request = { host: ctx.host, ip: ctx.ip, userAgent: ctx.get('User-Agent') };
  const principal = await deps.authenticate(credentials, { request, requestId, log: ctx.state.log, actors });
  ctx.state.principal = principal;
  return new CallerContext(actors, principal);
}

// What the original shows in the browser rather than offering to save.
const INLINE_TYPES =
  /^(image\/(apng|avif|gif|jpeg|png|webp)|audio\/[\w.+-]+|video\/(mp4|webm|ogg)|text\/plain|application\/pdf)(;|$)/i;
// The original's lifetime of a temporary URL.
const TEMPORARY_URL_SECONDS = 60;

const notFound = () => new ChatError('NOT_FOUND', 'File not found');
// The original's serve_file, for a file that exists but is not the caller's to read.
const forbidden = () => new ChatError('FORBIDDEN', 'You are not authorized to view this file.');

/** `realm/xx/random/name` from the URL's segments, or undefined when it cannot be an upload path. */
function pathIdOf(segments: string[]): string | undefined {
  if (segments.length < 3 || !/^\d+$/.test(segments[0]!)) return undefined;
  try {
    const decoded = segments.map((s) => decodeURIComponent(s));
    if (decoded.some((s) => s === '' || s === '.' || s === '..' || s.includes('/') || s.includes('\0'))) {
      return undefined;
    }
    return decoded.join('/');
  } catch {
    return undefined;
  }
}

/**
 * Whether the caller may read an upload: its owner may; anyone else needs a
 * message linking it that the conversation's actor lets them read. As in the
 * original, a refusal (403) differs from an unknown path (404): a path holds
 * a random 24-character part, so only someone shown the link can ask about
 * the file, and the status tells them nothing they could have guessed. An
 * upload of another realm is unknown here (the lookup is by the caller's
 * realm).
 */
export async function uploadAccess(caller: CallerContext, pathId: string): Promise<'read' | 'forbidden' | 'missing'> {
  const found = await caller.actors.ask(caller.me, {
    type: 'user.findUpload',
    path_id: pathId,
  });
  if (!found) return 'missing';
  return found.owner === caller.principal.user_id || (await readsALink(caller, pathId, found.owner))
    ? 'read'
    : 'forbidden';
}

/** Whether the caller may read one of the messages that link the upload. */
async function readsALink(caller: CallerContext, pathId: string, owner: number): Promise<boolean> {
  const links = await caller.actors.ask(userAddress(caller.principal.realm, owner), {
    type: 'user.attachmentLinks',
    path_id: pathId,
  });
  for (const link of links ?? []) {
    // A message moved to another channel lives elsewhere now: the location index says where.
    const located = await caller.actors.ask(caller.me, {
      type: 'user.locate',
      ids: [link.message_id],
    });
    const key = located[link.message_id] ?? link.key;
    const viewer = await caller.viewer(key);
    const ask = caller.actors.ask(conversationOfKey(key), { type: 'message.get', viewer, ids: [link.message_id] });
    // The conversation refuses with BAD_REQUEST what the viewer may not read; anything else is a real failure.
    const readable = await ask.then(
      () => true,
      (err: unknown) => {
        if (isChatError(err) && err.code === 'BAD_REQUEST') return false;
        throw err;
      },
    );
    if (readable) return true;
  }
  return false;
}

const serveFile = (ctx: RawContext, files: FileStore, pathId: string) =>
  serveStored(ctx, files, fileKey(pathId), pathId.slice(pathId.lastIndexOf('/') + 1));

/** A stored file's bytes under `name`, with the headers every download gets. */
export async function serveStored(ctx: RawContext, files: FileStore, key: string, name: string): Promise<void> {
  const stat = await files.stat(key);
  if (!stat) throw notFound();
  const inline = INLINE_TYPES.test(stat.contentType);
  ctx.status = 200;
  ctx.set('Content-Type', stat.contentType);
  ctx.set('Content-Disposition', `${inline ? 'inline' : 'attachment'}; filename*=UTF-8''${encodeURIComponent(name)}`);
  // The type we stored is the type we mean: no sniffing a text file into HTML.
  ctx.set('X-Content-Type-Options', 'nosniff');
  // Access can be withdrawn (a message deleted), so caches must ask again.
  ctx.set('Cache-Control', 'private, no-cache');
  if (ctx.method !== 'HEAD') {
    const body = await files.get(key);
    if (!body) throw notFound();
    ctx.body = body instanceof Readable ? body : Readable.from(body);
  }
  ctx.set('Content-Length', String(stat.size));
}

/** Signed, short-lived tokens naming one upload, for URLs that need no credentials. */
class TemporaryUrls {
  // Tokens live a minute, so a key made at start costs nothing on restart;
  // edges of a cluster share one (`temporaryUrlKey`), as any edge may serve the URL.
  constructor(private readonly key: Uint8Array = randomBytes(32)) {}

  create(realm: string, pathId: string, now: number): string {
    const payload = Buffer.from(JSON.stringify([Math.floor(now / 1000) + TEMPORARY_URL_SECONDS, realm, pathId]));
    return `${payload.toString('base64url')}.${this.sign(payload).toString('base64url')}`;
  }

  /** The realm and path a valid, unexpired token names. */
  read(token: string, now: number): { realm: string; pathId: string } | undefined {
    const [data, signature, ...rest] = token.split('.');
    if (data === undefined || signature === undefined || rest.length > 0) return undefined;
    const payload = Buffer.from(data, 'base64url');
    const given = Buffer.from(signature, 'base64url');
    const expected = this.sign(payload);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    const [expires, realm, pathId] = JSON.parse(payload.toString('utf8')) as [number, string, string];
    return expires * 1000 >= now ? { realm, pathId } : undefined;
  }

  private sign(payload: Buffer): Buffer {
    return createHmac('sha256', this.key).update(payload).digest();
  }
}

/**
 * Downloads, answered with the file's bytes rather than an envelope:
 *
 * - `GET /user_uploads/{realm_id}/{path}` with basic auth serves the file;
 * - `GET /api/v1/user_uploads/{realm_id}/{path}` (and its /json form, for
 *   a session) answers, as the original does, a temporary URL that works without credentials for a minute
 *   (what mobile clients hand to a browser or a media player);
 * - `GET /user_uploads/temporary/{token}/{name}` serves that URL.
 */
export function uploadDownloads(deps: RawDeps): RawMiddleware {
  const temporary = new TemporaryUrls(deps.options.temporaryUrlKey);
  return async (ctx, next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    const [first, ...segments] = ctx.path.split('/').slice(1);
    const json = first === 'json' && segments[0] === 'user_uploads';
    const api = json || (first === 'api' && segments[0] === 'v1' && segments[1] === 'user_uploads');
    if (first !== 'user_uploads' && !api) return next();
    const rest = json ? segments.slice(1) : api ? segments.slice(2) : segments;
    // `/api/v1/user_uploads` itself is the upload route's, with its own 405.
    if (rest.length === 0) return next();
    if (!api && rest[0] === 'temporary') {
      ctx.state.route = '/user_uploads/temporary/{token}/{filename}';
      ctx.state.secretPath = true;
      const named = rest.length === 3 ? temporary.read(rest[1]!, Date.now()) : undefined;
      const realm = deps.options.realmOf({ host: ctx.host, ip: ctx.ip, userAgent: ctx.get('User-Agent') });
      if (!named || named.realm !== realm) throw notFound();
      return serveFile(ctx, deps.options.files, named.pathId);
    }
    ctx.state.route = `${json ? '/json' : api ? '/api/v1' : ''}/user_uploads/{realm_id_str}/{filename}`;
    // Under /json, as the web app asks it, a session cookie will do (a GET needs no CSRF token).
    const caller = json
      ? new CallerContext(scopedActors(deps.actors, ctx.state.requestId), await pageCaller(ctx, deps))
      : await rawCaller(ctx, deps);
    const pathId = pathIdOf(rest);
    if (pathId === undefined) throw notFound();
    const access = await uploadAccess(caller, pathId);
    if (access === 'missing') throw notFound();
    if (access === 'forbidden') throw forbidden();
    if (!api) return serveFile(ctx, deps.options.files, pathId);
    const name = pathId.slice(pathId.lastIndexOf('/') + 1);
    const token = temporary.create(caller.principal.realm, pathId, Date.now());
    ctx.status = 200;
    const url = `/user_uploads/temporary/${token}/${encodeURIComponent(name)}`;
    // As the routes do: parameters this operation does not take are named, not fatal.
    const ignored = [...new Set(new URL(ctx.req.url ?? '', 'http://x').searchParams.keys())];
    ctx.body = {
      result: 'success',
      msg: '',
      url,
      ...(ignored.length > 0 && { ignored_parameters_unsupported: ignored }),
    };
    return undefined;
  };
}
