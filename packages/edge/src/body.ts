import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { Context, Middleware } from 'koa';
import { HttpMethodEnum, koaBody, type ScalarOrArrayFiles } from 'koa-body';
import { lookup } from 'mime-types';
import { ChatError, badRequest } from '@chat/protocol';
import type { UploadedFile } from './route.js';

export interface BodyLimits {
  /** Largest accepted body of an ordinary request (form, JSON or multipart), in bytes. */
  bodyBytes: number;
  /** Largest accepted file of a route that takes files, in bytes. */
  uploadBytes: number;
}

export interface BodyParsers {
  standard: Middleware;
  upload: Middleware;
}

/**
 * Two parsers built once: ordinary routes and upload routes differ only in how
 * large a multipart file may be. Zulip clients send form bodies on PATCH and
 * DELETE too, and zulip-js sends multipart on every POST, so every method with
 * a body is parsed and multipart is accepted everywhere.
 */
export function createBodyParsers(limits: BodyLimits): BodyParsers {
  return { standard: parser(limits, limits.bodyBytes), upload: parser(limits, limits.uploadBytes) };
}

function parser(limits: BodyLimits, fileBytes: number): Middleware {
  return koaBody({
    json: true,
    urlencoded: true,
    text: false,
    multipart: true,
    jsonLimit: limits.bodyBytes,
    formLimit: limits.bodyBytes,
    parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE],
    // Flat keys like Django's QueryDict: `a[b]=1` is a parameter named `a[b]`,
    // never a nested object; lists arrive JSON-encoded instead.
    queryString: { depth: 0, allowDots: false },
    formidable: {
      maxFileSize: fileBytes,
      maxTotalFileSize: fileBytes,
      maxFieldsSize: limits.bodyBytes,
      allowEmptyFiles: true,
      minFileSize: 0,
      // A part is a file when its Content-Disposition names a filename, as Django
      // reads it, whatever the field is called; python-requests sends such a part
      // without a Content-Type, which formidable alone would take for a field.
      // Its type is then guessed from the name, as the original does.
      onPart: (part, handle) => {
        if (typeof part.originalFilename === 'string' && !part.mimetype) {
          part.mimetype = lookup(part.originalFilename) || 'application/octet-stream';
        }
        handle(part);
      },
    },
    patchNode: false,
    onError: (err, ctx) => {
      throw bodyError(err, ctx, limits, fileBytes);
    },
  });
}

/** The fields a body parser error carries (raw-body, co-body, formidable); never its message. */
interface ParserFailure {
  status?: unknown;
  type?: unknown;
  httpCode?: unknown;
  code?: unknown;
}

function bodyError(err: Error, ctx: Context, limits: BodyLimits, fileBytes: number): Error {
  const failure = err as Error & ParserFailure;
  const status = typeof failure.httpCode === 'number' ? failure.httpCode : failure.status;
  if (status === 413 || failure.type === 'entity.too.large') {
    const limit = ctx.is('multipart') ? Math.max(fileBytes, limits.bodyBytes) : limits.bodyBytes;
    return new ChatError('REQUEST_TOO_LARGE', `Request is larger than the limit of ${limit} bytes`);
  }
  if (failure.status === 415) return badRequest('Unsupported content encoding');
  // zlib's codes: a body that claims a compression it does not have.
  if (typeof failure.code === 'string' && failure.code.startsWith('Z_')) return badRequest('Malformed request body');
  if (status === 400) {
    if (ctx.is('json')) return badRequest('Malformed JSON');
    if (ctx.is('multipart')) return badRequest('Malformed multipart body');
    return badRequest('Malformed request body');
  }
  return err;
}

/** Form and query values keyed by name; a repeated key counts once, with its last value, as in Django. */
export function formFields(source: unknown): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  if (source === null || typeof source !== 'object') return fields;
  for (const [name, value] of Object.entries(source)) {
    fields[name] = Array.isArray(value) ? value[value.length - 1] : value;
  }
  return fields;
}

/** The parameters of the body: JSON values stay typed; form and multipart values are strings. */
export function bodyFields(ctx: Context): Record<string, unknown> {
  const body: unknown = ctx.request.body;
  if (body === undefined) return {};
  if (ctx.is('json')) {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw badRequest('A JSON body must be an object of parameters');
    }
    return { ...body };
  }
  return formFields(body);
}

/** Uploaded files in the order of their fields; `read` streams from the temporary file. */
export function uploadedFiles(files: ScalarOrArrayFiles | undefined): { files: UploadedFile[]; paths: string[] } {
  const list: UploadedFile[] = [];
  const paths: string[] = [];
  for (const [field, value] of Object.entries(files ?? {})) {
    for (const file of Array.isArray(value) ? value : [value]) {
      paths.push(file.filepath);
      list.push({
        field,
        filename: file.originalFilename ?? '',
        contentType: file.mimetype ?? 'application/octet-stream',
        size: file.size,
        read: () => createReadStream(file.filepath),
      });
    }
  }
  return { files: list, paths };
}

/** Temporary files must not outlive their request, whatever the handler did. */
export async function removeFiles(paths: readonly string[]): Promise<void> {
  await Promise.all(paths.map((path) => rm(path, { force: true })));
}
