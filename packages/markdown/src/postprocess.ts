import type { StateCore, Token } from 'markdown-it';
import { splitUnicodeEmoji, unicodeEmojiHtml } from './emoji.js';
import type { Env } from './env.js';
import { escapeAttr } from './escape.js';
import { HTML_TOKEN } from './tokens.js';
import { isImagePath, uploadPathOf } from './urls.js';

/** Emoji typed as Unicode characters get the same markup as `:name:`, as in the original. */
export function unicodeEmoji(state: StateCore): void {
  if (!(state.env as Env).ctx) return;
  for (const block of state.tokens) {
    if (block.type !== 'inline' || !block.children) continue;
    const out: Token[] = [];
    for (const token of block.children) {
      const pieces = token.type === 'text' ? splitUnicodeEmoji(token.content) : undefined;
      if (!pieces) {
        out.push(token);
        continue;
      }
      for (const piece of pieces) {
        const made = new state.Token('text' in piece ? 'text' : HTML_TOKEN, '', 0);
        made.level = token.level;
        made.content = 'text' in piece ? piece.text : unicodeEmojiHtml(piece.emoji, piece.code);
        out.push(made);
      }
    }
    block.children = out;
  }
}

/**
 * Notes links and uploads for the message's flags, gives empty links their URL
 * as text (as the original does), and previews linked image uploads after the
 * paragraph holding the link.
 */
export function links(state: StateCore): void {
  const env = state.env as Env;
  if (!env.ctx) return;
  const previewed = new Set<string>();
  const blocks = state.tokens;
  let quoteDepth = 0;
  for (let b = 0; b < blocks.length; b++) {
    const block = blocks[b]!;
    if (block.type === 'blockquote_open') quoteDepth++;
    if (block.type === 'blockquote_close') quoteDepth--;
    if (block.type !== 'inline' || !block.children) continue;
    const previews: string[] = [];
    const children = block.children;
    for (let i = 0; i < children.length; i++) {
      const open = children[i]!;
      if (open.type !== 'link_open') continue;
      const href = open.attrGet('href') ?? '';
      env.hasLink = true;
      let close = i + 1;
      while (
        close < children.length &&
        !(children[close]!.type === 'link_close' && children[close]!.level === open.level)
      ) {
        close++;
      }
      const inner = children.slice(i + 1, close);
      const text = inner.map((t) => (t.type === 'text' || t.type === 'code_inline' ? t.content : '')).join('');
      if (inner.every((t) => t.type === 'text' && t.content.trim() === '')) {
        const filler = new state.Token('text', '', 0);
        filler.content = href;
        filler.level = open.level + 1;
        children.splice(i + 1, close - i - 1, filler);
      }
      const path = uploadPathOf(href);
      if (path === undefined) continue;
      env.uploadPaths.add(path);
      // Only relative upload links are certainly this server's files, so only they are
      // previewed; the original shows no previews inside quotes.
      if (quoteDepth === 0 && href.startsWith('/user_uploads/') && isImagePath(path) && !previewed.has(href)) {
        previewed.add(href);
        const title = open.markup === 'linkify' || !text.trim() ? '' : ` title="${escapeAttr(text)}"`;
        const url = escapeAttr(href);
        previews.push(`<div class="message_inline_image"><a href="${url}"${title}><img src="${url}"></a></div>`);
      }
    }
    const after = blocks[b + 1];
    if (previews.length === 0 || after?.type !== 'paragraph_close') continue;
    env.hasImage = true;
    const token = new state.Token(HTML_TOKEN, '', 0);
    token.block = true;
    // A tight list item's paragraph renders without tags or newline; the preview follows the text directly.
    token.content = previews.join('') + (after.hidden ? '' : '\n');
    blocks.splice(b + 2, 0, token);
  }
}
