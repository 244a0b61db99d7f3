import { anyWordMatches, parseSearch, type SearchQuery } from './search.js';
import type { NarrowMessage, ResolvedTerm } from './types.js';

const HIGHLIGHT_START = '<span class="highlight">';
const HIGHLIGHT_END = '</span>';

/** HTML-escapes a topic the way the original's escape_html does before highlighting it. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/**
 * One piece of HTML: a comment or tag (quoted attribute values may hold '>'), a character
 * reference, or a run of text. Only text runs are highlighted, so a keyword in a tag name,
 * an attribute or an entity is never wrapped, which would break the markup.
 */
const HTML_PIECE =
  /(<!--[\s\S]*?-->|<[a-zA-Z/!?](?:[^>"']|"[^"]*"|'[^']*')*>)|(&(?:#[0-9]+|#[xX][0-9a-fA-F]+|[a-zA-Z][a-zA-Z0-9]*);)|([^<&]+|[<&])/g;

/** Same definition of a word as search.ts, so what matched is what gets highlighted. */
const WORD = /[\p{L}\p{M}\p{N}]+/gu;

/** Wraps every word of the HTML's text that satisfies the query, leaving markup untouched. */
export function highlightHtml(html: string, query: SearchQuery): string {
  return html.replace(HTML_PIECE, (piece: string, markup?: string, entity?: string) => {
    if (markup !== undefined || entity !== undefined) return piece;
    return piece.replace(WORD, (word) =>
      anyWordMatches(query, word.toLowerCase()) ? `${HIGHLIGHT_START}${word}${HIGHLIGHT_END}` : word,
    );
  });
}

/**
 * For matches_narrow and search results: content and topic with the search keywords marked as the
 * original marks them (`<span class="highlight">word</span>`, whole words, in text only). All
 * non-negated search terms count, as the original joins them into one query. Without a search term,
 * the content is the rendered HTML as is and the subject the HTML-escaped topic.
 */
export function highlight(
  message: Pick<NarrowMessage, 'rendered' | 'topic'>,
  terms: ResolvedTerm[],
): { match_content: string; match_subject: string } {
  const operands = terms.filter((t) => t.operator === 'search' && !t.negated).map((t) => t.operand as string);
  const subject = escapeHtml(message.topic);
  if (operands.length === 0) return { match_content: message.rendered, match_subject: subject };
  const query = parseSearch(operands.join(' '));
  return { match_content: highlightHtml(message.rendered, query), match_subject: highlightHtml(subject, query) };
}
