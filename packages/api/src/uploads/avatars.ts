import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import { defineRoute, type Route, type UploadedFile } from '@chat/edge';
import type { ActorClient } from '@chat/runtime';
import { avatarFileKey, avatarPath, ChatError, realmAddress, type Principal } from '@chat/protocol';
import type { ApiOptions } from '../options.js';
import { answerImage } from './public-image.js';
import type { RawMiddleware } from './downloads.js';

const bad = (msg: string) => new ChatError('BAD_REQUEST', msg);

/** The original's MAX_AVATAR_FILE_SIZE_MIB. */
const MAX_AVATAR_MIB = 5;

/** The image types an avatar may be, by their first bytes (the original decodes the image instead). */
const SIGNATURES: Array<{ extension: string; type: string; matches: (b: Buffer) => boolean }> = [
  {
    extension: 'png',
    type: 'image/png',
    matches: (b) => b.subarray(0, 4).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47])),
  },
  { extension: 'gif', type: 'image/gif', matches: (b) => b.subarray(0, 4).toString('latin1') === 'GIF8' },
  { extension: 'jpeg', type: 'image/jpeg', matches: (b) => b.subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff])) },
  {
    extension: 'webp',
    type: 'image/webp',
    matches: (b) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP',
  },
];

async function readAll(file: UploadedFile): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const part of file.read()) parts.push(part);
  return Buffer.concat(parts);
}

/** An image that passed the original's checks, read and ready to store. */
export interface AvatarImage {
  bytes: Buffer;
  extension: string;
  type: string;
}

/** The original's checks of an avatar upload: its size, then that it is an image. */
export async function checkAvatar(file: UploadedFile): Promise<AvatarImage> {
  if (file.size > MAX_AVATAR_MIB * 1024 * 1024) {
    throw bad(`Uploaded file is larger than the allowed limit of ${MAX_AVATAR_MIB} MiB`);
  }
  const bytes = await readAll(file);
  const kind = SIGNATURES.find((s) => s.matches(bytes));
  if (!kind) throw bad('Could not decode image; did you upload an image file?');
  return { bytes, extension: kind.extension, type: kind.type };
}

/**
 * Stores `image` as the avatar of `userId` (the caller, or a bot the caller
 * administers), as the original's `upload_avatar_image` and
 * `do_change_avatar_fields`; `null` goes back to the gravatar. The image is
 * kept as uploaded (the original resizes it to 100 and 500 pixels; this
 * server has no image library, so both sizes serve the same bytes).
 * Answers the new `avatar_url`.
 */
export async function setAvatar(
  options: ApiOptions,
  actors: ActorClient,
  principal: Principal,
  userId: number,
  image: AvatarImage | null,
): Promise<string> {
  const realm = realmAddress(principal.realm);
  let path: string | null = null;
  if (image !== null) {
    const info = await actors.ask(realm, { type: 'realm.info' });
    path = avatarPath(info.id, `${randomBytes(12).toString('base64url')}.${image.extension}`);
    await options.files.put(avatarFileKey(path), Readable.from([image.bytes]), image.type);
  }
  let changed;
  try {
    changed = await actors.ask(realm, { type: 'realm.setAvatar', actor: principal, user_id: userId, file: path });
  } catch (err) {
    if (path !== null) await options.files.delete(avatarFileKey(path)).catch(() => {});
    throw err;
  }
  if (changed.previous !== null) await options.files.delete(avatarFileKey(changed.previous)).catch(() => {});
  return changed.avatar_url;
}

export function avatarRoutes(options: ApiOptions): Route[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/users/me/avatar',
      auth: 'required',
      files: true,
      params: Type.Object({}),
      summary: 'Upload your avatar',
      description: `Replaces your avatar with one uploaded image (PNG, GIF, JPEG or WebP, at most ${MAX_AVATAR_MIB} MiB).`,
      tags: ['users'],
      response: Type.Object({ avatar_url: Type.String() }),
      async handler({ principal, actors, files }) {
        if (files.length !== 1) throw bad('You must upload exactly one avatar.');
        return {
          avatar_url: await setAvatar(options, actors, principal, principal.user_id, await checkAvatar(files[0]!)),
        };
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/users/me/avatar',
      auth: 'required',
      params: Type.Object({}),
      summary: 'Delete your avatar',
      description: 'Goes back to the gravatar; answers its URL.',
      tags: ['users'],
      response: Type.Object({ avatar_url: Type.String() }),
      async handler({ principal, actors }) {
        return { avatar_url: await setAvatar(options, actors, principal, principal.user_id, null) };
      },
    }),
  ];
}

/** Uploaded avatars, public like the original's `/user_avatars/<realm id>/<file>`. */
export function avatarImages(options: ApiOptions): RawMiddleware {
  return async (ctx, next) => {
    const found = /^\/user_avatars\/(\d+)\/([A-Za-z0-9_-]+\.([a-z]+))$/.exec(ctx.path);
    if (!found || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    ctx.state.route = '/user_avatars/{realm_id}/{file}';
    const [, realmId = '', file = '', extension = ''] = found; // every group is required by the pattern
    const type = SIGNATURES.find((s) => s.extension === extension)?.type;
    const body = type ? await options.files.get(avatarFileKey(avatarPath(Number(realmId), file))) : undefined;
    answerImage(ctx, body, type);
  };
}
