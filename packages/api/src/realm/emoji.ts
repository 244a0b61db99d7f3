import { randomBytes } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { defineRoute, type Route } from '@chat/edge';
import { isEmojiName } from '@chat/markdown';
import { ChatError, realmAddress } from '@chat/protocol';
import type { ApiOptions } from '../options.js';
import { answerImage } from '../uploads/public-image.js';
import type { RawMiddleware } from '../uploads/downloads.js';

const bad = (msg: string) => new ChatError('BAD_REQUEST', msg);

/** The original's MAX_EMOJI_FILE_SIZE_MIB. */
const MAX_EMOJI_MIB = 5;
/** The image types a custom emoji may be, with the extension its file gets. */
const IMAGE_TYPES: Record<string, string> = {
  'image/png': 'png',
  'image/gif': 'gif',
  'image/jpeg': 'jpeg',
  'image/webp': 'webp',
};
const URL_PREFIX = '/user_avatars/';
const fileKey = (realmId: number, file: string) => `emoji/${realmId}/${file}`;

/** The original's check of a custom emoji's name, after it turned spaces into underscores. */
function checkName(raw: string): string {
  const name = raw.trim().replace(/ /g, '_');
  if (name === '') throw bad('Emoji name is missing');
  if (/^[0-9a-z\-_]+$/.test(name)) {
    if (/[-_]$/.test(name)) throw bad('Emoji names must end with either a letter or digit.');
    return name;
  }
  throw bad('Emoji names must contain only lowercase English letters, digits, spaces, dashes, and underscores.');
}

export function emojiRoutes(options: ApiOptions): Route[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/realm/emoji',
      auth: 'required',
      params: Type.Object({}),
      summary: 'Get all custom emoji',
      description: "The organization's custom emoji by id, deactivated ones included.",
      tags: ['server_and_organizations'],
      async handler({ principal, actors }) {
        return {
          emoji: await actors.ask(realmAddress(principal.realm), { type: 'realm.emoji' }),
        };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/realm/emoji/{emoji_name}',
      auth: 'required',
      params: Type.Object({ emoji_name: Type.String() }),
      files: true,
      summary: 'Upload custom emoji',
      description: 'Adds a custom emoji from one uploaded image (PNG, GIF, JPEG or WebP, at most 5 MiB).',
      tags: ['server_and_organizations'],
      async handler({ params, principal, actors, files }) {
        const name = checkName(params.emoji_name);
        if (files.length !== 1) throw bad('You must upload exactly one file.');
        const [file] = files as [(typeof files)[0]];
        if (file.size > MAX_EMOJI_MIB * 1024 * 1024) {
          throw bad(`Uploaded file is larger than the allowed limit of ${MAX_EMOJI_MIB} MiB`);
        }
        const extension = IMAGE_TYPES[file.contentType.split(';')[0]!.trim().toLowerCase()];
        const realm = realmAddress(principal.realm);
        const add = {
          type: 'realm.addEmoji' as const,
          actor_id: principal.user_id,
          name,
          overrides_default: isEmojiName(name),
        };
        if (!extension) {
          // Who may add it is checked before the image is read, as in the original.
          await actors.ask(realm, { ...add, source_url: '', check_only: true });
          throw bad('Invalid image format');
        }
        const info = await actors.ask(realm, { type: 'realm.info' });
        const stored = `${randomBytes(12).toString('base64url')}.${extension}`;
        // The image goes first; a refusal removes it again.
        await options.files.put(fileKey(info.id, stored), file.read(), file.contentType);
        try {
          await actors.ask(realm, { ...add, source_url: `${URL_PREFIX}${info.id}/emoji/images/${stored}` });
        } catch (err) {
          await options.files.delete(fileKey(info.id, stored)).catch(() => {});
          throw err;
        }
        return {};
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/realm/emoji/{emoji_name}',
      auth: 'required',
      params: Type.Object({ emoji_name: Type.String() }),
      summary: 'Deactivate custom emoji',
      description: 'Deactivates a custom emoji: messages and reactions keep showing it, nobody can use it anew.',
      tags: ['server_and_organizations'],
      async handler({ params, principal, actors }) {
        await actors.ask(realmAddress(principal.realm), {
          type: 'realm.removeEmoji',
          actor_id: principal.user_id,
          name: params.emoji_name,
        });
        return {};
      },
    }),
  ];
}

/** The images of custom emoji, public like the original's `/user_avatars/<realm>/emoji/images/<file>`. */
export function emojiImages(options: ApiOptions): RawMiddleware {
  return async (ctx, next) => {
    const found = /^\/user_avatars\/(\d+)\/emoji\/images\/([A-Za-z0-9_-]+\.([a-z]+))$/.exec(ctx.path);
    if (!found || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    ctx.state.route = '/user_avatars/{realm_id}/emoji/images/{file}';
    const [, realmId = '', file = '', extension = ''] = found; // every group is required by the pattern
    const body = await options.files.get(fileKey(Number(realmId), file));
    const type = Object.entries(IMAGE_TYPES).find(([, ext]) => ext === extension)?.[0];
    answerImage(ctx, body, type);
  };
}
