// Writes data/emoji-names.json: every emoji's canonical name and aliases as the
// original names them today. The facts it works from:
// - hand-picked-emoji-names.txt: the original's hand-picked names (its
//   custom_emoji_names table), one emoji a line: code, canonical name, aliases;
// - every other emoji of `emoji-datasource` is named from CLDR's English
//   annotations: the short name (tts) is the canonical name, the keywords
//   (default) the aliases, each cleaned up ('&' -> 'and', quotes . , : ( )
//   dropped, spaces and dashes -> '_', lower case);
// - the skin-tone modifiers and all clock faces but 1f557 are left out;
// - no alias may be some emoji's canonical name; an alias two emoji share stays
//   only with those named by hand; a name with accents also gets its plain-ASCII
//   spelling as an alias (taken from any emoji that had it).
// Checked on 2026-11-27: with the table as it was in April 2023 (1f64f 'pray',
// 1f604 'big_smile', 1f642 'smile'), emoji-datasource 14.0.0 and CLDR 42 these
// rules give zulip-terminal's copy of the original's map of then
// (zulipterminal/unicode_emojis.py: 1,826 emoji, 2,887 names) entry for entry,
// names in the same order. CLDR 46.0 to 48.2 all give today's file.
// Run after a data update, with CLDR's packages unpacked beside it:
//   npm pack cldr-annotations-full@46 cldr-annotations-derived-full@46 (and untar)
//   node scripts/emoji-names.mjs <annotations.json> <annotationsDerived.json>
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { format, resolveConfig } from 'prettier';

const require = createRequire(import.meta.url);
const [plainPath, derivedPath] = process.argv.slice(2);
const cldr = {
  ...JSON.parse(readFileSync(plainPath, 'utf8')).annotations.annotations,
  ...JSON.parse(readFileSync(derivedPath, 'utf8')).annotationsDerived.annotations,
};
const handPicked = new Map(
  readFileSync(new URL('./hand-picked-emoji-names.txt', import.meta.url), 'utf8')
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .map(([code, ...names]) => [code, names]),
);
const skipped = new Set([
  ...['1f3fb', '1f3fc', '1f3fd', '1f3fe', '1f3ff'],
  ...Array.from({ length: 0x1f568 - 0x1f550 }, (_, i) => (0x1f550 + i).toString(16)).filter((c) => c !== '1f557'),
]);
const clean = (text) =>
  text
    .trim()
    .replaceAll(/[ \-–]/g, '_')
    .replaceAll(/[“”:.,()‘’']/g, '')
    .replaceAll('&', 'and')
    .replace(/_{2,}/g, '_')
    .toLowerCase();
const ascii = (name) => {
  const plain = name.normalize('NFD').replace(/[\u0300-\u036f]/g, '');
  if (!/^[\x00-\x7f]*$/.test(plain)) throw new Error(`no ASCII spelling for ${name}`);
  return plain;
};
const codeOf = (unified) =>
  unified
    .toLowerCase()
    .split('-')
    .filter((p) => p !== 'fe0f')
    .join('-');
const charsOf = (code) => String.fromCodePoint(...code.split('-').map((h) => parseInt(h, 16)));

// Step 1: a canonical name and aliases per emoji.
const emojis = new Map();
const canonicals = new Set();
for (const entry of require('emoji-datasource/emoji.json')) {
  const code = codeOf(entry.unified);
  if (skipped.has(code)) continue;
  let canonical, aliases;
  if (handPicked.has(code)) {
    [canonical, ...aliases] = handPicked.get(code);
    canonicals.add(clean(canonical));
  } else {
    const annotation = cldr[charsOf(code)];
    if (!annotation) {
      console.warn(`skipped ${code}: neither hand-picked nor in CLDR`);
      continue;
    }
    canonical = clean(annotation.tts[0]);
    aliases = annotation.default.map(clean);
    canonicals.add(canonical);
  }
  if (emojis.has(code)) throw new Error(`${code} twice`);
  emojis.set(code, { canonical, aliases });
}
// Step 2: no alias is a canonical name; note who holds each alias.
const holders = new Map();
for (const [code, names] of emojis) {
  names.aliases = names.aliases.filter((alias) => !canonicals.has(alias));
  for (const alias of names.aliases) holders.set(alias, [...(holders.get(alias) ?? []), code]);
}
const drop = (code, alias) => {
  const list = emojis.get(code).aliases;
  const at = list.indexOf(alias);
  if (at >= 0) list.splice(at, 1);
};
// Step 3: a shared alias stays only with the emoji named by hand.
for (const [alias, codes] of holders)
  if (codes.length > 1) for (const code of codes) if (!handPicked.has(code)) drop(code, alias);
// Step 4: the ASCII spelling of a name with accents.
const noAsciiForm = new Set(['ココ', 'サ', '指', '空']);
for (const [code, names] of emojis)
  for (const name of [names.canonical, ...names.aliases]) {
    if (/^[\x00-\x7f]*$/.test(name) || noAsciiForm.has(name)) continue;
    const plain = ascii(name);
    for (const other of holders.get(plain) ?? []) drop(other, plain);
    names.aliases.push(plain);
  }

const codeToNames = Object.fromEntries(
  [...emojis.keys()].sort().map((code) => [code, [emojis.get(code).canonical, ...emojis.get(code).aliases]]),
);
// Written as prettier writes it (the repository's settings), so that the data
// file passes `prettier --check` like every other file: one emoji a line where
// the line fits, one name a line where it does not.
const out = new URL('../data/emoji-names.json', import.meta.url);
const json = JSON.stringify({ code_to_names: codeToNames });
writeFileSync(out, await format(json, { ...(await resolveConfig(out)), parser: 'json' }));
const counts = {};
for (const names of Object.values(codeToNames)) counts[names.length] = (counts[names.length] ?? 0) + 1;
const total = Object.values(codeToNames).flat().length;
console.log(
  `${Object.keys(codeToNames).length} emoji, ${total} names; emoji by number of names: ${JSON.stringify(counts)}`,
);
