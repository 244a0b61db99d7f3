import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import { basicCredentials, defineRoute, type Authenticate, type AuthRequest, type Route } from '@chat/edge';
import {
  ChatError,
  isChatError,
  userAddress,
  type Attachment,
  type AttachmentLink,
  type Principal,
  type RealmInfo,
} from '@chat/protocol';
import type { ActorClient, FileStore } from '@chat/runtime';
import { addressOfKey, CallerContext } from './context.js';
import type { ApiOptions } from './options.js';

const MIB = 1024 * 1024;
// Linux file systems limit a path segment to 255 bytes, and the name is the last segment.
const MAX_NAME_BYTES = 255;

/** A file to keep: its name as the client gave it, its type and its bytes. */
export interface IncomingFile {
  name: string;
  contentType: string;
  body: AsyncIterable<Uint8Array>;
}

export interface StoredUpload {
  url: string;
  filename: string;
  path_id: string;
}

export const maxUploadBytes = (options: ApiOptions) => options.maxFileUploadSizeMib * MIB;

export const tooLarge = (options: ApiOptions) =>
  new ChatError(
    'REQUEST_TOO_LARGE',
    `Uploaded file is larger than the allowed limit of ${options.maxFileUploadSizeMib} MiB`,
  );

/** Where the FileStore keeps an upload; avatars and the like get other prefixes. */
export const fileKey = (pathId: string) => `attachments/${pathId}`;

/**
 * A name safe in a file system, in object storage and in a URL, as the
 * original makes it: Unicode letters and digits, `_`, `.` and `-` stay,
 * runs of spaces and dashes become one dash, and the extension survives
 * truncation. Combining marks are kept too, so names in scripts that need
 * them stay readable.
 */
export function sanitizeName(value: string): string {
  const cleaned = value
    .normalize('NFKC')
    .replace(/[^\p{L}\p{M}\p{N}_\s.-]/gu, '')
    .trim()
    .replace(/[-\s]+/g, '-');
  const name = truncateName(cleaned, MAX_NAME_BYTES);
  return name === '' || name === '.' || name === '..' ? 'uploaded-file' : name;
}

function truncateName(name: string, maxBytes: number): string {
  const bytes = (s: string) => Buffer.byteLength(s);
  if (bytes(name) <= maxBytes) return name;
  const dot = name.lastIndexOf('.');
  const keepExtension = dot > 0 && bytes(name.slice(dot)) < maxBytes;
  const extension = keepExtension ? name.slice(dot) : '';
  let stem = keepExtension ? name.slice(0, dot) : name;
  // Whole code points only, so no character is cut in half.
  while (bytes(stem) + bytes(extension) > maxBytes) stem = [...stem].slice(0, -1).join('');
  return stem + extension;
}

// Realm ids never change, so each realm is asked once per process.
const realmIds = new Map<string, Promise<number>>();

function realmIdOf(caller: CallerContext): Promise<number> {
  const realm = caller.principal.realm;
  let id = realmIds.get(realm);
  if (!id) {
    id = caller.actors.ask<RealmInfo>(caller.realm, { type: 'realm.info' }).then((info) => info.id);
    id.catch(() => realmIds.delete(realm));
    realmIds.set(realm, id);
  }
  return id;
}

/**
 * Stores a file and records it as the caller's attachment; shared by the
 * multipart upload and the resumable one. The bytes go first: if recording
 * fails, the file is never reachable (no owner row) and is removed.
 */
export async function storeUpload(
  caller: CallerContext,
  options: ApiOptions,
  file: IncomingFile,
): Promise<StoredUpload> {
  // NUL is the one character no file name may keep.
  const filename = file.name.replace(/\0/g, '') || 'uploaded-file';
  const random = randomBytes(18).toString('base64url');
  const pathId = `${await realmIdOf(caller)}/${randomBytes(1).toString('hex')}/${random}/${sanitizeName(filename)}`;
  const stat = await options.files.put(fileKey(pathId), file.body, file.contentType);
  if (stat.size > maxUploadBytes(options)) {
    await options.files.delete(fileKey(pathId));
    throw tooLarge(options);
  }
  try {
    await caller.actors.ask(caller.me, { type: 'user.uploaded', path_id: pathId, name: filename, size: stat.size });
  } catch (err) {
    await options.files.delete(fileKey(pathId)).catch(() => {});
    throw err;
  }
  return { url: `/user_uploads/${pathId}`, filename, path_id: pathId };
}

/**
 * After a message of the caller links `paths` (and, for an edit, no longer
 * links `unlinked`): the caller's own uploads among them become readable by
 * whoever can read the message. Answers the caller's uploads that no message
 * links any more.
 */
export async function claimUploads(
  caller: CallerContext,
  link: { message_id: number; key: string; date_sent: number; paths: string[]; unlinked?: string[] },
): Promise<Attachment[]> {
  if (link.paths.length === 0 && (link.unlinked ?? []).length === 0) return [];
  const reply = await caller.actors.ask<{ detached: Attachment[] }>(caller.me, {
    type: 'user.claimAttachments',
    ...link,
  });
  return reply.detached;
}

const AttachmentSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  path_id: Type.String(),
  size: Type.Integer(),
  create_time: Type.Integer(),
  messages: Type.Array(Type.Object({ id: Type.Integer(), date_sent: Type.Integer() })),
});

export function uploadRoutes(options: ApiOptions): Route[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/user_uploads',
      auth: 'required',
      params: Type.Object({}),
      files: true,
      summary: 'Upload a file',
      description:
        'Stores one file sent as a multipart part and answers its URL. Only the uploader can read it ' +
        'until a message linking it is sent; then whoever can read that message can.',
      tags: ['messages'],
      response: Type.Object({ uri: Type.String(), url: Type.String(), filename: Type.String() }),
      async handler({ principal, actors, files }) {
        if (files.length === 0) throw new ChatError('BAD_REQUEST', 'You must specify a file to upload');
        if (files.length > 1) throw new ChatError('BAD_REQUEST', 'You may only upload one file at a time');
        const [file] = files as [(typeof files)[0]];
        if (file.size > maxUploadBytes(options)) throw tooLarge(options);
        const stored = await storeUpload(new CallerContext(actors, principal), options, {
          name: file.filename,
          contentType: file.contentType,
          body: file.read(),
        });
        return { uri: stored.url, url: stored.url, filename: stored.filename };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/attachments',
      auth: 'required',
      params: Type.Object({}),
      summary: 'Get attachments',
      description: "The caller's uploaded files, the messages linking each, and the organization's total use.",
      tags: ['users'],
      response: Type.Object({ attachments: Type.Array(AttachmentSchema), upload_space_used: Type.Integer() }),
      async handler({ principal, actors }) {
        const caller = new CallerContext(actors, principal);
        return actors.ask<{ attachments: Attachment[]; upload_space_used: number }>(caller.me, {
          type: 'user.attachments',
        });
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/attachments/{attachment_id}',
      auth: 'required',
      params: Type.Object({ attachment_id: Type.Integer() }),
      summary: 'Delete an attachment',
      description: "Deletes one of the caller's uploaded files; links to it stop working.",
      tags: ['messages'],
      async handler({ params, principal, actors }) {
        const caller = new CallerContext(actors, principal);
        const { path_id } = await actors.ask<{ path_id: string }>(caller.me, {
          type: 'user.deleteAttachment',
          attachment_id: params.attachment_id,
        });
        // The record goes first: a file left behind by a failure here is unreachable, not dangling.
        await options.files.delete(fileKey(path_id));
        return {};
      },
    }),
  ];
}

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
  state: { requestId: string; log: AuthRequest['log']; route?: string; principal?: Principal };
  get(field: string): string;
  set(field: string, value: string): void;
}
export type RawMiddleware = (ctx: RawContext, next: () => Promise<unknown>) => Promise<unknown>;

export interface RawDeps {
  options: ApiOptions;
  actors: ActorClient;
  authenticate: Authenticate;
}

/** Basic auth as the edge routes do it; the caller's asks carry the request id. */
export async function rawCaller(ctx: RawContext, deps: RawDeps): Promise<CallerContext> {
  const credentials = basicCredentials(ctx.get('Authorization') || undefined);
  if (!credentials) {
    throw new ChatError('UNAUTHORIZED', 'Not logged in: API authentication or user session required');
  }
  const { requestId } = ctx.state;
  const actors: ActorClient = {
    ask: (to, body, opts) => deps.actors.ask(to, body, { requestId, ...opts }),
    tell: (to, body, opts) => deps.actors.tell(to, body, { requestId, ...opts }),
    fanout: (type, keys, body, opts) => deps.actors.fanout(type, keys, body, { requestId, ...opts }),
  };
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
 * message linking it that the conversation's actor lets them read. Unknown
 * paths and refusals look the same, so nothing tells an upload exists.
 */
export async function mayRead(caller: CallerContext, pathId: string): Promise<boolean> {
  const found = await caller.actors.ask<{ owner: number } | null>(caller.me, {
    type: 'user.findUpload',
    path_id: pathId,
  });
  if (!found) return false;
  if (found.owner === caller.principal.user_id) return true;
  const links = await caller.actors.ask<AttachmentLink[] | null>(userAddress(caller.principal.realm, found.owner), {
    type: 'user.attachmentLinks',
    path_id: pathId,
  });
  for (const link of links ?? []) {
    const viewer = await caller.viewer(link.key);
    const ask = caller.actors.ask(addressOfKey(link.key), { type: 'message.get', viewer, ids: [link.message_id] });
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

async function serveFile(ctx: RawContext, files: FileStore, pathId: string): Promise<void> {
  const stat = await files.stat(fileKey(pathId));
  if (!stat) throw notFound();
  const name = pathId.slice(pathId.lastIndexOf('/') + 1);
  const inline = INLINE_TYPES.test(stat.contentType);
  ctx.status = 200;
  ctx.set('Content-Type', stat.contentType);
  ctx.set('Content-Disposition', `${inline ? 'inline' : 'attachment'}; filename*=UTF-8''${encodeURIComponent(name)}`);
  // The type we stored is the type we mean: no sniffing a text file into HTML.
  ctx.set('X-Content-Type-Options', 'nosniff');
  // Access can be withdrawn (a message deleted), so caches must ask again.
  ctx.set('Cache-Control', 'private, no-cache');
  if (ctx.method !== 'HEAD') {
    const body = await files.get(fileKey(pathId));
    if (!body) throw notFound();
    ctx.body = body instanceof Readable ? body : Readable.from(body);
  }
  ctx.set('Content-Length', String(stat.size));
}

/** Signed, short-lived tokens naming one upload, for URLs that need no credentials. */
class TemporaryUrls {
  // Made at start: tokens live a minute, so losing them on restart costs nothing.
  // A cluster of edges will need one shared key instead.
  private readonly key = randomBytes(32);

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
 * - `GET /api/v1/user_uploads/{realm_id}/{path}` answers, as the original
 *   does, a temporary URL that works without credentials for a minute
 *   (what mobile clients hand to a browser or a media player);
 * - `GET /user_uploads/temporary/{token}/{name}` serves that URL.
 */
export function uploadDownloads(deps: RawDeps): RawMiddleware {
  const temporary = new TemporaryUrls();
  return async (ctx, next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    const [first, ...segments] = ctx.path.split('/').slice(1);
    const api = first === 'api' && segments[0] === 'v1' && segments[1] === 'user_uploads';
    if (first !== 'user_uploads' && !api) return next();
    const rest = api ? segments.slice(2) : segments;
    // `/api/v1/user_uploads` itself is the upload route's, with its own 405.
    if (rest.length === 0) return next();
    if (!api && rest[0] === 'temporary') {
      ctx.state.route = '/user_uploads/temporary/{token}/{filename}';
      const named = rest.length === 3 ? temporary.read(rest[1]!, Date.now()) : undefined;
      const realm = deps.options.realmOf({ host: ctx.host, ip: ctx.ip, userAgent: ctx.get('User-Agent') });
      if (!named || named.realm !== realm) throw notFound();
      return serveFile(ctx, deps.options.files, named.pathId);
    }
    ctx.state.route = `${api ? '/api/v1' : ''}/user_uploads/{realm_id_str}/{filename}`;
    const caller = await rawCaller(ctx, deps);
    const pathId = pathIdOf(rest);
    if (!pathId || !(await mayRead(caller, pathId))) throw notFound();
    if (!api) return serveFile(ctx, deps.options.files, pathId);
    const name = pathId.slice(pathId.lastIndexOf('/') + 1);
    const token = temporary.create(caller.principal.realm, pathId, Date.now());
    ctx.status = 200;
    ctx.body = { result: 'success', msg: '', url: `/user_uploads/temporary/${token}/${encodeURIComponent(name)}` };
    return undefined;
  };
}
