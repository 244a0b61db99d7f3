import { randomBytes } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { defineRoute, type Route } from '@chat/edge';
import { ChatError, type Attachment } from '@chat/protocol';
import { CallerContext } from '../context.js';
import type { ApiOptions } from '../options.js';

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
    id = caller.actors.ask(caller.realm, { type: 'realm.info' }).then((info) => info.id);
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
  const reply = await caller.actors.ask(caller.me, {
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
      // Documents the operation; the download handler (downloads.ts) answers it ahead of the routes,
      // since a file's path has slashes of its own. Only a path of one segment reaches this handler,
      // and no upload has such a path.
      method: 'GET',
      path: '/user_uploads/{realm_id_str}/{filename}',
      auth: 'required',
      params: Type.Object({
        realm_id_str: Type.Integer({ description: 'The realm ID.' }),
        filename: Type.String({
          description: "The rest of the file's path, e.g. `4e/m2A3MSqFnWRLUf9SaPzQ0Up_/zulip.txt`.",
        }),
      }),
      summary: 'Get public temporary URL',
      description:
        'A URL of the file that works for a minute without credentials (what a mobile client hands to a ' +
        'browser or a media player), for a caller who may read the file.',
      tags: ['messages'],
      response: Type.Object({ url: Type.String() }),
      handler() {
        return Promise.reject(new ChatError('NOT_FOUND', 'File not found'));
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
        return actors.ask(caller.me, {
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
        const { path_id } = await actors.ask(caller.me, {
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
