import type { StateInline } from 'markdown-it';
import { emojiCode, realmEmojiHtml, unicodeEmojiHtml } from './emoji.js';
import type { Env } from './env.js';
import { matchAt } from './match.js';
import { pushHtml } from './tokens.js';
import { isSafeUrl } from './urls.js';

const EMOJI = /:([\w+-]+):/y;

/** `:name:` for a realm emoji (which wins, as in the original) or a Unicode emoji name. */
export function emojiName(state: StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x3a /* : */) return false;
  const env = state.env as Env;
  if (!env.ctx) return false;
  const m = matchAt(state, EMOJI);
  if (!m) return false;
  const name = m[1]!;
  const custom = env.ctx.realmEmoji?.get(name);
  let html: string | undefined;
  if (custom && isSafeUrl(custom.source_url)) html = realmEmojiHtml(name, custom.source_url);
  else {
    const code = emojiCode(name);
    if (code !== undefined) html = unicodeEmojiHtml(name, code);
  }
  if (html === undefined) return false;
  if (!silent) pushHtml(state, html);
  state.pos += m[0].length;
  return true;
}

/**
 * The original has no underscore emphasis (`_x_` and `__x__` stay literal, so
 * snake_case names survive), so runs of "_" are consumed as plain text before
 * the emphasis rule can see them.
 */
export function literalUnderscore(state: StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x5f /* _ */) return false;
  let end = state.pos;
  while (end < state.posMax && state.src.charCodeAt(end) === 0x5f) end++;
  if (!silent) state.pending += state.src.slice(state.pos, end);
  state.pos = end;
  return true;
}
