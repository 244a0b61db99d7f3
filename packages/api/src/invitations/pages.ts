import type { IncomingMessage } from 'node:http';
import { ChatError } from '@chat/protocol';
import type { RawContext } from '../uploads/downloads.js';

/**
 * The few pages a browser opens from a mailed link (joining, confirming a
 * new address). Plain HTML without scripts; every value is escaped.
 */
export const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export function renderPage(ctx: RawContext, status: number, title: string, body: string): void {
  ctx.status = status;
  ctx.set('Content-Type', 'text/html; charset=utf-8');
  // The page holds a form for a secret link: nothing may frame it or keep it.
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.body = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>${escapeHtml(title)}</title></head>
<body><main><h1>${escapeHtml(title)}</h1>
${body}
</main></body></html>
`;
}

/** A paragraph of text, escaped. */
export const paragraph = (text: string) => `<p>${escapeHtml(text)}</p>`;

const MAX_FORM_BYTES = 16 * 1024;

/** A urlencoded form body, as a browser posts it; larger ones are refused. */
export async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_FORM_BYTES) throw new ChatError('REQUEST_TOO_LARGE', 'Request too large');
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/** The key of `/<prefix>/<key>/` (trailing slash optional), or undefined for any other path. */
export function keyFromPath(path: string, prefix: string): string | undefined {
  if (!path.startsWith(prefix)) return undefined;
  const rest = path.slice(prefix.length).replace(/\/$/, '');
  return rest !== '' && !rest.includes('/') ? rest : undefined;
}
