import { createHash } from 'node:crypto';
import { emojiNamesByCode } from '@chat/markdown';
import type { RawMiddleware } from '../../uploads/downloads.js';
import { EMOJI_DATA_PATH } from './realm-section.js';

let served: { body: string; etag: string } | undefined;

/**
 * `server_emoji_data_url`: every Unicode emoji this server accepts, as
 * `{"code_to_names": {code: [canonical name, ...aliases]}}`, without
 * credentials and with caching headers, as the original serves it.
 */
export function emojiData(): RawMiddleware {
  return async (ctx, next) => {
    if (ctx.path !== EMOJI_DATA_PATH || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    ctx.state.route = EMOJI_DATA_PATH;
    if (!served) {
      const body = JSON.stringify({ code_to_names: emojiNamesByCode() });
      served = { body, etag: `"${createHash('sha256').update(body).digest('hex').slice(0, 32)}"` };
    }
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.set('ETag', served.etag);
    if (ctx.get('If-None-Match') === served.etag) {
      ctx.status = 304;
      return;
    }
    ctx.set('Content-Type', 'application/json');
    ctx.body = served.body;
  };
}
