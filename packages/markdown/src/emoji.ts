import { createRequire } from 'node:module';
import { escapeAttr, escapeText } from './escape.js';

interface EmojiEntry {
  unified: string;
  non_qualified: string | null;
}

interface EmojiTables {
  /** Every name and alias -> emoji code. */
  codeByName: Map<string, string>;
  /** Emoji code -> its names, the canonical one first. */
  namesByCode: Record<string, string[]>;
  /** Codepoints without variation selectors -> the emoji's canonical name. */
  nameBySequence: Map<string, string>;
  /** Emoji code -> the fully qualified character sequence. */
  charsByCode: Map<string, string>;
}

let tables: EmojiTables | undefined;

/**
 * The original's names: `data/emoji-names.json` is its emoji name map (canonical
 * name and aliases per emoji code, in the format of its `server_emoji_data_url`),
 * made as the original makes it: its hand-picked names
 * (`scripts/hand-picked-emoji-names.txt`), CLDR 46's short name and keywords for
 * every other emoji, less the aliases that are a name or that two emoji share
 * (`scripts/emoji-names.mjs`).
 * The characters come from `emoji-datasource`.
 * Both are read on first use (1.4 MB of JSON), so that importing the package
 * (e.g. for scan() alone) stays cheap.
 */
function load(): EmojiTables {
  if (tables) return tables;
  const require = createRequire(import.meta.url);
  const namesByCode = (require('../../data/emoji-names.json') as { code_to_names: Record<string, string[]> })
    .code_to_names;
  const entries = require('emoji-datasource/emoji.json') as EmojiEntry[];
  const codeByName = new Map<string, string>();
  for (const [code, names] of Object.entries(namesByCode)) for (const name of names) codeByName.set(name, code);
  const nameBySequence = new Map<string, string>();
  const charsByCode = new Map<string, string>();
  for (const entry of entries) {
    // The original's emoji codes (and so the sprite class names clients style by)
    // drop the FE0F variation selector wherever the data offers a form without it.
    const code = (entry.non_qualified ?? entry.unified).toLowerCase();
    const names = namesByCode[code];
    if (!names) continue;
    nameBySequence.set(withoutSelectors(entry.unified.toLowerCase()), names[0]!);
    charsByCode.set(code, String.fromCodePoint(...entry.unified.split('-').map((hex) => parseInt(hex, 16))));
  }
  tables = { codeByName, namesByCode, nameBySequence, charsByCode };
  return tables;
}

function withoutSelectors(code: string): string {
  return code
    .split('-')
    .filter((part) => part !== 'fe0f')
    .join('-');
}

/** Emoji names of the service: name -> codepoint string like "1f642" (lowercase, '-' joined). */
export function emojiCode(name: string): string | undefined {
  return load().codeByName.get(name);
}

export function isEmojiName(name: string): boolean {
  return load().codeByName.has(name);
}

/** The characters an emoji code stands for, as the data set writes them. */
export function emojiCharacters(code: string): string | undefined {
  return load().charsByCode.get(code);
}

/** Every Unicode emoji the service accepts: code -> names, the canonical name first. */
export function emojiNamesByCode(): Readonly<Record<string, readonly string[]>> {
  return load().namesByCode;
}

/** The original labels an emoji with its name, underscores read as spaces. */
function label(name: string): string {
  return name.replace(/_/g, ' ');
}

export function unicodeEmojiHtml(name: string, code: string): string {
  const title = escapeAttr(label(name));
  return (
    `<span aria-label="${title}" class="emoji emoji-${escapeAttr(code)}" role="img" title="${title}">` +
    `:${escapeText(name)}:</span>`
  );
}

export function realmEmojiHtml(name: string, url: string): string {
  return `<img alt=":${escapeAttr(name)}:" class="emoji" src="${escapeAttr(url)}" title="${escapeAttr(label(name))}">`;
}

// One candidate emoji: a keycap, a flag (two regional indicators), or a
// pictograph with optional selector/skin tone and any ZWJ continuation. A whole
// sequence the data set does not know is left alone rather than split, as the
// original does, so an unknown ZWJ sequence never renders as its parts.
const SEQUENCE =
  /[#*0-9]\uFE0F?\u20E3|[\u{1F1E6}-\u{1F1FF}]{2}|\p{Extended_Pictographic}[\uFE0F\u{1F3FB}-\u{1F3FF}]?(?:\u200D\p{Extended_Pictographic}[\uFE0F\u{1F3FB}-\u{1F3FF}]?)*/gu;

/**
 * Characters that only sometimes draw as emoji (©, ®, ™, arrows) stay text unless
 * the writer asked for emoji presentation with FE0F; the ranges are those the
 * original treats as emoji on their own.
 */
function countsAsEmoji(match: string): boolean {
  const points = [...match];
  if (points.length > 1) return true;
  const cp = match.codePointAt(0)!;
  if (cp >= 0x1f000) return true;
  return (
    (cp >= 0x2000 && cp <= 0x206f) ||
    (cp >= 0x2300 && cp <= 0x27bf) ||
    (cp >= 0x2b00 && cp <= 0x2bff) ||
    (cp >= 0x3000 && cp <= 0x303f) ||
    (cp >= 0x3200 && cp <= 0x32ff)
  );
}

function sequenceKey(match: string): string {
  return [...match]
    .map((c) => c.codePointAt(0)!)
    .filter((cp) => cp !== 0xfe0f)
    .map((cp) => cp.toString(16).padStart(4, '0'))
    .join('-');
}

/** A piece of text: either plain text, or a known emoji written as a Unicode character. */
export type TextPiece = { text: string } | { emoji: string; code: string };

/** Splits text at the Unicode emoji it contains; undefined when there are none. */
export function splitUnicodeEmoji(text: string): TextPiece[] | undefined {
  if (!/[^\x00-\u1fff]/.test(text)) return undefined;
  const { nameBySequence, codeByName } = load();
  const pieces: TextPiece[] = [];
  let last = 0;
  for (const m of text.matchAll(SEQUENCE)) {
    if (!countsAsEmoji(m[0])) continue;
    const name = nameBySequence.get(sequenceKey(m[0]));
    if (name === undefined) continue;
    if (m.index > last) pieces.push({ text: text.slice(last, m.index) });
    pieces.push({ emoji: name, code: codeByName.get(name)! });
    last = m.index + m[0].length;
  }
  if (pieces.length === 0) return undefined;
  if (last < text.length) pieces.push({ text: text.slice(last) });
  return pieces;
}
