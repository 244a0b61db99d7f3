import type { StateCore, Token } from 'markdown-it';
import { RE2JS, RE2JSSyntaxException } from 're2js';
import type { Env } from './env.js';
import { isSafeUrl } from './urls.js';
import { expandTemplate } from './url-template.js';

/** A realm's linkifier: text matching `pattern` (with named groups) links to `url_template` filled from them. */
export interface RenderLinkifier {
  pattern: string;
  url_template: string;
}

/** RE2's own words (the C++ library the original uses) for what re2js, a port of RE2/J, words its own way. */
const RE2_WORDS: Record<string, string> = {
  'missing closing ]': 'missing ]',
  'missing closing )': 'missing )',
  'trailing backslash at end of expression': 'trailing \\',
  'missing argument to repetition operator': 'no argument for repetition operator',
  'invalid nested repetition operator': 'bad repetition operator',
  'invalid repeat count': 'bad repetition operator',
  'invalid or unsupported Perl syntax': 'invalid perl operator',
  'invalid named capture': 'invalid named capture group',
  'duplicate capture group name': 'invalid named capture group',
  'expression too large': 'pattern too large - compile failed',
  'expression nests too deeply': 'pattern too large - compile failed',
};

/**
 * A linkifier's pattern compiled as the original compiles it, with RE2
 * (through re2js, pure JavaScript): matching takes time linear in the
 * text, so no pattern can hang the renderer, and what RE2 refuses
 * (lookaround, backreferences, bad syntax) throws a SyntaxError worded as
 * RE2 words it (`missing ): (a`).
 */
export function linkifierPattern(pattern: string): RE2JS {
  try {
    return RE2JS.compile(pattern);
  } catch (err) {
    if (!(err instanceof RE2JSSyntaxException)) throw err;
    const [, what = err.message, arg] = /^error parsing regexp: ([^:]+)(?:: `(.*)`)?$/s.exec(err.message) ?? [];
    const words = RE2_WORDS[what] ?? what;
    throw new SyntaxError(arg === undefined ? words : `${words}: ${arg}`);
  }
}

const compiled = new Map<string, RE2JS | null>();
function patternOf(source: string): RE2JS | null {
  let re = compiled.get(source);
  if (re === undefined) {
    try {
      re = linkifierPattern(source);
    } catch {
      re = null;
    }
    if (compiled.size > 1000) compiled.clear();
    compiled.set(source, re);
  }
  return re;
}

// The original links a match only after the start, a space or an opening
// mark, and only when no letter or digit follows it.
const BEFORE = /[\s\u0085\p{Z}'"(,:<]/u;
const WORDLIKE = /[\p{L}\p{N}]/u;

/** A run of a text token: plain text, or text an earlier linkifier linked. */
interface Piece {
  text: string;
  href?: string;
}

interface Match {
  start: number;
  end: number;
  href: string;
}

/** Where one linkifier matches `text` (each edge counting as a boundary or not), with the URL of each match. */
function matchesOf(text: string, linkifier: RenderLinkifier, startOk: boolean, endOk: boolean): Match[] {
  const re = patternOf(linkifier.pattern);
  if (!re) return [];
  const names = Object.keys(re.namedGroups());
  const found: Match[] = [];
  const m = re.matcher(text);
  for (let from = 0; from <= text.length && m.find(from);) {
    const start = m.start();
    const end = m.end();
    const before = start === 0 ? startOk : BEFORE.test(text[start - 1]!);
    const after = end === text.length ? endOk : !WORDLIKE.test(String.fromCodePoint(text.codePointAt(end)!));
    const groups = Object.fromEntries(names.map((name) => [name, m.group(name) ?? undefined]));
    const href = before && after && end > start ? expandTemplate(linkifier.url_template, groups) : undefined;
    if (href === undefined || !isSafeUrl(href)) {
      from = start + 1;
      continue;
    }
    found.push({ start, end, href });
    from = end;
  }
  return found;
}

function splitByLinkifier(pieces: Piece[], linkifier: RenderLinkifier, openStart: boolean, openEnd: boolean): Piece[] {
  const out: Piece[] = [];
  pieces.forEach((piece, n) => {
    if (piece.href !== undefined) return out.push(piece);
    const text = piece.text;
    // At a piece's edge lies either the token's edge or an earlier link, after which the original matches nothing.
    let from = 0;
    for (const { start, end, href } of matchesOf(
      text,
      linkifier,
      n === 0 && openStart,
      n === pieces.length - 1 && openEnd,
    )) {
      if (start > from) out.push({ text: text.slice(from, start) });
      out.push({ text: text.slice(start, end), href });
      from = end;
    }
    if (from < text.length) out.push({ text: text.slice(from) });
  });
  return out;
}

/**
 * A topic's links (`topic_links`), as the original finds them: linkifier
 * matches in the realm's order, then raw URLs, each where nothing found
 * before overlaps it, in the order they appear.
 */
export function topicLinks(
  topic: string,
  linkifiers: RenderLinkifier[],
  urls: { index: number; lastIndex: number; url: string }[],
): { text: string; url: string }[] {
  const found: Match[] = [];
  const free = (m: { start: number; end: number }) => !found.some((f) => m.start < f.end && m.end > f.start);
  for (const linkifier of linkifiers) {
    for (const m of matchesOf(topic, linkifier, true, true)) if (free(m)) found.push(m);
  }
  for (const u of urls) {
    const m = { start: u.index, end: u.lastIndex, href: u.url };
    if (free(m)) found.push(m);
  }
  return found.sort((a, b) => a.start - b.start).map((m) => ({ text: topic.slice(m.start, m.end), url: m.href }));
}

const isOpening = (t: Token | undefined) =>
  !t || t.type === 'softbreak' || t.type === 'hardbreak' || (t.nesting === 1 && t.type !== 'link_open');
const isClosing = (t: Token | undefined) =>
  !t || t.type === 'softbreak' || t.type === 'hardbreak' || (t.nesting === -1 && t.type !== 'link_close');

/**
 * Links the text that matches the realm's linkifiers, in the realm's order:
 * what one linkifier linked, later ones leave alone. Text inside links and
 * code, and mentions, are not matched.
 */
export function linkifiers(state: StateCore): void {
  const env = state.env as Env;
  const list = env.ctx?.linkifiers;
  if (!list?.length) return;
  for (const block of state.tokens) {
    if (block.type !== 'inline' || !block.children) continue;
    const out: Token[] = [];
    let inLink = 0;
    const children = block.children;
    children.forEach((token, i) => {
      if (token.type === 'link_open') inLink++;
      if (token.type === 'link_close') inLink--;
      if (token.type !== 'text' || inLink > 0) return out.push(token);
      let pieces: Piece[] = [{ text: token.content }];
      for (const linkifier of list) {
        pieces = splitByLinkifier(pieces, linkifier, isOpening(children[i - 1]), isClosing(children[i + 1]));
      }
      for (const piece of pieces) {
        if (piece.href !== undefined) {
          const open = new state.Token('link_open', 'a', 1);
          open.attrs = [['href', piece.href]];
          open.level = token.level;
          out.push(open);
        }
        const text = new state.Token('text', '', 0);
        text.content = piece.text;
        text.level = token.level + (piece.href !== undefined ? 1 : 0);
        out.push(text);
        if (piece.href !== undefined) {
          const close = new state.Token('link_close', 'a', -1);
          close.level = token.level;
          out.push(close);
        }
      }
    });
    block.children = out;
  }
}
