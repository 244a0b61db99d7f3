import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { FileStore as TusFileStore } from '@tus/file-store';
import { ERRORS, Server, type Upload } from '@tus/server';
import { ChatError, isChatError } from '@chat/protocol';
import type { CallerContext } from '../context.js';
import { rawCaller, type RawContext, type RawDeps, type RawMiddleware } from './downloads.js';
import { maxUploadBytes, storeUpload, tooLarge } from './uploads.js';

export const TUS_PATH = '/api/v1/tus';
// GET is not part of the protocol; finished files are read through /user_uploads.
const TUS_METHODS = new Set(['OPTIONS', 'POST', 'HEAD', 'PATCH', 'DELETE']);
// Unfinished uploads are dropped a day after they started.
const EXPIRE_AFTER_MS = 24 * 60 * 60 * 1000;
const SWEEP_EVERY_MS = 60 * 60 * 1000;
// The upload's metadata names its owner, so only they may resume, inspect or cancel it.
const OWNER = 'chat-owner';

export interface TusUploads {
  middleware: RawMiddleware;
  close(): void;
}

const ownerTag = (caller: CallerContext) => `${caller.principal.realm}:${caller.principal.user_id}`;

/**
 * Resumable uploads (the tus protocol) at /api/v1/tus, with @tus/server.
 * The parts arrive in `directory`; when the last one does, the file moves
 * into the FileStore and becomes the caller's attachment exactly as a
 * multipart upload would, and the final PATCH answers `{url, filename}` as
 * the original's server does.
 */
export function tusUploads(deps: RawDeps & { directory: string }): TusUploads {
  const { options } = deps;
  // The server only ever sees Requests built below, each with its caller and log.
  const requests = new WeakMap<Request, { caller?: CallerContext; log: RawContext['state']['log'] }>();
  const callerOf = (req: Request | object): CallerContext => {
    const caller = requests.get(req as Request)?.caller;
    if (!caller) throw new ChatError('UNAUTHORIZED', 'Not logged in: API authentication or user session required');
    return caller;
  };
  const datastore = new TusFileStore({ directory: deps.directory, expirationPeriodInMilliseconds: EXPIRE_AFTER_MS });

  const server = new Server({
    path: TUS_PATH,
    datastore,
    maxSize: maxUploadBytes(options),
    relativeLocation: true,
    // Same origin only: credentials travel in the Authorization header.
    allowedOrigins: [],
    disableTerminationForFinishedUploads: true,
    async onUploadCreate(req, upload) {
      // tus hooks refuse by throwing a response: the original needs the length up front too.
      if (upload.sizeIsDeferred) throw { status_code: 411, body: 'Uploads must declare their length\n' };
      return { metadata: { ...upload.metadata, [OWNER]: ownerTag(callerOf(req)) } };
    },
    async onIncomingRequest(req, id) {
      if (req.method === 'POST') return;
      const upload = await datastore.getUpload(id);
      // Someone else's upload does not exist, as far as this caller can tell.
      if (upload.metadata?.[OWNER] !== ownerTag(callerOf(req))) throw ERRORS.FILE_NOT_FOUND;
    },
    async onUploadFinish(req, upload) {
      const stored = await finish(callerOf(req), upload);
      return {
        status_code: 200,
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ url: stored.url, filename: stored.filename }),
      };
    },
    onResponseError(req, err) {
      if (isChatError(err)) return errorBody(err);
      if ('status_code' in err) return err.status_code === 413 ? errorBody(tooLarge(options)) : undefined;
      // A fault of ours: logged, and the client learns only that it happened.
      requests.get(req as Request)?.log.error({ err }, 'resumable upload failed');
      return errorBody(new ChatError('INTERNAL_SERVER_ERROR', 'Internal server error'));
    },
  });

  async function finish(caller: CallerContext, upload: Upload) {
    const name = upload.metadata?.filename ?? '';
    const contentType = upload.metadata?.filetype || 'application/octet-stream';
    const path = upload.storage?.path;
    if (!path) throw new Error(`tus upload ${upload.id} has no file`);
    const stored = await storeUpload(caller, options, { name, contentType, body: createReadStream(path) });
    await datastore.remove(upload.id);
    return stored;
  }

  const sweep = setInterval(() => {
    datastore.deleteExpired().catch(() => {});
  }, SWEEP_EVERY_MS);
  sweep.unref();

  return {
    middleware: async (ctx, next) => {
      if (ctx.path !== TUS_PATH && !ctx.path.startsWith(`${TUS_PATH}/`)) return next();
      if (!TUS_METHODS.has(ctx.method)) return next();
      ctx.state.route = ctx.path === TUS_PATH ? TUS_PATH : `${TUS_PATH}/{upload_id}`;
      const request = webRequest(ctx);
      // A preflight carries no credentials; everything else is authenticated as any route.
      const caller = ctx.method === 'OPTIONS' ? undefined : await rawCaller(ctx, deps);
      requests.set(request, { ...(caller ? { caller } : {}), log: ctx.state.log });
      ctx.body = await server.handleWeb(request);
      return undefined;
    },
    close: () => clearInterval(sweep),
  };
}

function errorBody(err: ChatError) {
  return {
    status_code: err.status,
    body: JSON.stringify({ result: 'error', msg: err.message, code: err.envelopeCode }),
  };
}

/** The Koa request as a fetch Request, streaming its body. */
function webRequest(ctx: RawContext): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(ctx.req.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  const hasBody = ctx.method === 'POST' || ctx.method === 'PATCH';
  return new Request(`http://${ctx.host || 'localhost'}${ctx.req.url ?? ctx.path}`, {
    method: ctx.method,
    headers,
    ...(hasBody ? { body: Readable.toWeb(ctx.req) as ReadableStream<Uint8Array>, duplex: 'half' } : {}),
  });
}
