import type { StateBlock, StateInline } from 'markdown-it';

/**
 * Markup this package builds itself travels as a token of this type. It is only
 * ever created by the package's rules, with every interpolated value escaped at
 * creation, and the renderer emits it verbatim.
 */
export const HTML_TOKEN = 'zulip_html';

export function pushHtml(state: StateInline, html: string): void {
  state.push(HTML_TOKEN, '', 0).content = html;
}

export function pushBlockHtml(state: StateBlock, html: string): void {
  const token = state.push(HTML_TOKEN, '', 0);
  token.content = html;
  token.block = true;
}
