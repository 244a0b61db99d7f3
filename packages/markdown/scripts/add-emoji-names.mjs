// Adds to data/emoji-names.json the emoji of `emoji-datasource` that it lacks (those
// of Unicode 15.1 and 16.0), named as the original names new emoji: the canonical
// name is CLDR's short name in snake case, the aliases are CLDR's keywords that no
// emoji already uses. Skin-tone modifiers and the clock faces stay out, as in the
// original's map. Run once after a data update, with CLDR's annotation packages
// unpacked beside it:
//   npm pack cldr-annotations-full@46 cldr-annotations-derived-full@46 (and untar)
//   node scripts/add-emoji-names.mjs <annotations.json> <annotationsDerived.json>
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const [plainPath, derivedPath] = process.argv.slice(2);
const cldr = {
  ...JSON.parse(readFileSync(plainPath, 'utf8')).annotations.annotations,
  ...JSON.parse(readFileSync(derivedPath, 'utf8')).annotationsDerived.annotations,
};
const file = new URL('../data/emoji-names.json', import.meta.url);
const map = JSON.parse(readFileSync(file, 'utf8'));
const names = map.code_to_names;
const taken = new Set(Object.values(names).flat());
const snake = (text) =>
  text
    .toLowerCase()
    .replace(/[:,]/g, '')
    .replace(/[\s-]+/g, '_');
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
const additions = {};
for (const entry of entries) {
  const key = code(entry.unified);
  if (names[key] || excluded(entry) || !entry.has_img_google || !entry.has_img_twitter) continue;
  const annotation = cldr[chars(entry.unified)];
  if (!annotation) throw new Error(`no CLDR annotation for ${entry.name}`);
  const canonical = snake(annotation.tts[0]);
  const aliases = annotation.default.map(snake).filter((n) => n !== canonical && !n.includes('_') && !taken.has(n));
  for (const n of [canonical, ...aliases]) taken.add(n);
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
