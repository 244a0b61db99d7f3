import { emojiCharacters } from './emoji.js';

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, body: string) => {
    if (body[0] === '#') {
      const cp = body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      return cp > 0 && cp <= 0x10ffff ? String.fromCodePoint(cp) : whole;
    }
    return NAMED[body.toLowerCase()] ?? whole;
  });
}

/** Plain text of rendered HTML (for search): tags stripped, entities decoded. */
export function htmlToText(html: string): string {
  const text = html
    // An emoji reads as its character (as the original's text content does), a custom one as its :name:.
    .replace(
      /<span [^>]*class="emoji emoji-([0-9a-f-]+)"[^>]*>[^<]*<\/span>/g,
      (whole, code: string) => emojiCharacters(code) ?? whole,
    )
    .replace(/<img [^>]*alt="([^"]*)"[^>]*>/g, '$1')
    .replace(/<[^>]*>/g, '');
  return decodeEntities(text);
}
