import { Readable } from 'node:stream';
import type { RawContext } from './downloads.js';

/**
 * Answers a public image (an avatar, a custom emoji): its bytes with their
 * type, cached for good since a stored name is never reused; without the
 * file or a known type, the original's 404.
 */
export function answerImage(
  ctx: RawContext,
  body: AsyncIterable<Uint8Array> | undefined,
  type: string | undefined,
): void {
  if (!body || !type) {
    ctx.status = 404;
    ctx.set('Content-Type', 'application/json');
    ctx.body = JSON.stringify({ result: 'error', msg: 'File not found', code: 'NOT_FOUND' });
    return;
  }
  ctx.set('Content-Type', type);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
  ctx.body = body instanceof Readable ? body : Readable.from(body);
}
