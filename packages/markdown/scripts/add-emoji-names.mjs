// Adds to data/emoji-names.json the emoji of `emoji-datasource` that it lacks (those
// of Unicode 15.1 and 16.0), named by the original's rule for emoji it does not name
// by hand: the canonical name is CLDR's short name (tts) cleaned up, the aliases are
// all of CLDR's keywords cleaned up, less those that are some emoji's canonical name
// and those another emoji also holds (an alias of the map, or a CLDR keyword of an
// emoji the map names from CLDR). Checked against the original's live map on
// phoenix, lime and woman_running_facing_right (test/emoji.test.ts). Skin-tone modifiers and the clock faces stay out, as in the
// original's map. Run once after a data update, with CLDR's annotation packages
// unpacked beside it:
//   npm pack cldr-annotations-full@46 cldr-annotations-derived-full@46 (and untar)
//   node scripts/add-emoji-names.mjs <annotations.json> <annotationsDerived.json>
// on the file as it was before the 15.1/16.0 emoji were added (git show 9b0aaa3^:...).
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const [plainPath, derivedPath] = process.argv.slice(2);
const derived = JSON.parse(readFileSync(derivedPath, 'utf8')).annotationsDerived.annotations;
const cldr = { ...JSON.parse(readFileSync(plainPath, 'utf8')).annotations.annotations, ...derived };
const file = new URL('../data/emoji-names.json', import.meta.url);
const map = JSON.parse(readFileSync(file, 'utf8'));
const names = map.code_to_names;
const taken = new Set(Object.values(names).flat());
// The original's clean-up of a CLDR label: '&' -> 'and', quotes and . , : ( ) dropped,
// spaces and dashes -> '_', lower case.
const snake = (text) =>
  text
    .trim()
    .replaceAll('&', 'and')
    .replace(/[“”‘’'.,:()]/g, '')
    .replace(/[\s\-–]+/g, '_')
    .replace(/_{2,}/g, '_')
    .toLowerCase();
const code = (unified) =>
  unified
    .toLowerCase()
    .split('-')
    .filter((p) => p !== 'fe0f')
    .join('-');
const chars = (unified) =>
  String.fromCodePoint(
    ...code(unified)
      .split('-')
      .map((h) => parseInt(h, 16)),
  );
const excluded = (entry) => /^(EMOJI MODIFIER|CLOCK FACE)/.test(entry.name);

const entries = require('emoji-datasource/emoji.json').sort((a, b) => a.sort_order - b.sort_order);
const keywords = (entry) => (cldr[chars(entry.unified)]?.default ?? []).map(snake);
// An emoji of the map that the original named from CLDR (its name is CLDR's, its aliases
// CLDR keywords) rather than by hand: a keyword it shares with a new emoji is dropped
// from both, as the original drops every alias two CLDR-named emoji share. A name alone
// is taken as CLDR's only for derived annotations (flags, sequences): the hand-named
// lemon keeps its one name, and so lime keeps 'citrus' and 'sour' as in the live map.
const fromCldr = (entry, list) => {
  const annotation = cldr[chars(entry.unified)];
  if (!annotation || list[0] !== snake(annotation.tts[0])) return false;
  if (list.length < 2 && !derived[chars(entry.unified)]) return false;
  const words = new Set(keywords(entry));
  return list.slice(1).every((n) => words.has(n));
};
const added = entries.filter((entry) => {
  const key = code(entry.unified);
  return !names[key] && !excluded(entry) && entry.has_img_google && entry.has_img_twitter;
});
const canonicals = new Set(Object.values(names).map((list) => list[0]));
for (const entry of added) {
  const annotation = cldr[chars(entry.unified)];
  if (!annotation) throw new Error(`no CLDR annotation for ${entry.name}`);
  canonicals.add(snake(annotation.tts[0]));
}
const holders = new Map();
const hold = (word, key) => holders.set(word, (holders.get(word) ?? new Set()).add(key));
for (const entry of entries) {
  const key = code(entry.unified);
  if (names[key] && fromCldr(entry, names[key])) for (const word of keywords(entry)) hold(word, key);
  else if (names[key]) for (const word of names[key].slice(1)) hold(word, key);
}
for (const entry of added) for (const word of keywords(entry)) hold(word, code(entry.unified));
const additions = {};
for (const entry of added) {
  const key = code(entry.unified);
  const canonical = snake(cldr[chars(entry.unified)].tts[0]);
  const aliases = [...new Set(keywords(entry))].filter((n) => !canonicals.has(n) && holders.get(n).size === 1);
  names[key] = additions[key] = [canonical, ...aliases];
}
// One emoji a line, as the file has always been written; the new ones go last
// (rewriting the object would move the keys that look like numbers first).
const text = readFileSync(file, 'utf8').trimEnd();
const tail = /\n  }\n}$/;
if (!tail.test(text)) throw new Error('unexpected layout of emoji-names.json');
const lines = Object.entries(additions).map(
  ([key, list]) => `    ${JSON.stringify(key)}: ${JSON.stringify(list).replaceAll('","', '", "')}`,
);
writeFileSync(file, `${text.replace(tail, '')},\n${lines.join(',\n')}\n  }\n}\n`);
console.log(`added ${lines.length} emoji; ${Object.keys(names).length} in all`);
