/**
 * Hostile parameter values for the OpenAPI-driven fuzzer (fuzz.ts): what a
 * broken or malicious client may put in one form field, query parameter or
 * JSON body property. Every list is fixed, so a run is reproducible; the
 * seeded generator below only picks among them.
 */

/** A small seeded PRNG (mulberry32): the same seed gives the same run. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One value as text in a form field or query parameter. */
export interface WireValue {
  label: string;
  text: string;
  /** Already percent-encoded: bytes no JS string can carry, such as invalid UTF-8. */
  encoded?: boolean;
}

const range = (n: number, f: (i: number) => string) => Array.from({ length: n }, (_, i) => f(i)).join(',');
const deepArray = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const deepObject = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

/** Values any parameter may meet; `room` bounds the length of the long ones (a query string is short). */
export function anyValues(room: number): WireValue[] {
  let values = cache.get(room);
  if (!values) cache.set(room, (values = makeAnyValues(room)));
  return values;
}

const cache = new Map<number, WireValue[]>();

function makeAnyValues(room: number): WireValue[] {
  const depth = Math.min(5000, Math.floor(room / 12));
  return [
    { label: 'empty string', text: '' },
    { label: 'null', text: 'null' },
    { label: 'boolean', text: 'true' },
    { label: 'negative', text: '-1' },
    { label: 'zero', text: '0' },
    { label: 'float', text: '1.5' },
    { label: 'beyond 2^53', text: '9007199254740993' },
    { label: 'huge integer', text: '9'.repeat(40) },
    { label: 'float overflow', text: '1e400' },
    { label: 'NaN', text: 'NaN' },
    { label: 'padded number', text: ' 7 ' },
    { label: 'hex number', text: '0x1F' },
    { label: 'JSON object', text: '{"a":1}' },
    { label: 'JSON list', text: '[1,2]' },
    { label: 'JSON string', text: '"quoted"' },
    { label: 'invalid JSON', text: '[1,' },
    { label: 'truncated JSON', text: '{"a":' },
    { label: 'plain word', text: 'not json' },
    { label: 'prototype keys', text: '{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}}' },
    { label: 'long string', text: 'a'.repeat(room) },
    { label: 'long multibyte string', text: 'é'.repeat(Math.floor(room / 2)) },
    { label: 'NUL byte', text: 'a\u0000b' },
    { label: 'encoded NUL', text: '%00', encoded: true },
    { label: 'lone surrogate (CESU bytes)', text: 'a%ED%A0%80b', encoded: true },
    { label: 'invalid UTF-8', text: '%FF%FE%C0%80', encoded: true },
    { label: 'broken percent escape', text: '%zz%', encoded: true },
    { label: 'RTL override', text: '\u202Egnp.exe\u202C' },
    { label: 'zero-width characters', text: '\u200B\u200D\uFEFF' },
    { label: 'combining marks', text: 'Z' + '\u0336\u0337'.repeat(Math.min(500, room / 8)) },
    { label: 'emoji', text: '👩‍👩‍👧‍👦🏳️‍🌈🇩🇰' },
    { label: 'control characters', text: '\r\n\t\u001b[31m\u007f' },
    { label: 'markup', text: '<script>alert(1)</script>' },
    { label: 'path traversal', text: '../../../etc/passwd' },
    { label: 'format strings', text: '%s%n{0}${x}' },
    { label: 'deep JSON list', text: deepArray(depth) },
    { label: 'deep JSON object', text: deepObject(depth) },
    { label: 'list of 10,000 integers', text: `[${range(room >= 100_000 ? 10_000 : 500, (i) => String(i))}]` },
    { label: 'list of 10,000 strings', text: `[${range(room >= 100_000 ? 10_000 : 500, () => '"x"')}]` },
  ];
}

/** For parameters holding JSON lists or objects: wrong element types and shapes. */
export const jsonValues: WireValue[] = [
  { label: 'empty list', text: '[]' },
  { label: 'empty object', text: '{}' },
  { label: 'list of null', text: '[null]' },
  { label: 'list of negative', text: '[-1]' },
  { label: 'list of float', text: '[1.5]' },
  { label: 'list of huge', text: '[1e308, 9007199254740993]' },
  { label: 'list of string', text: '["x"]' },
  { label: 'nested list', text: '[[1]]' },
  { label: 'list of object', text: '[{}]' },
  { label: 'list of objects with odd keys', text: '[{"operator":null,"operand":{"a":[]}}]' },
  { label: 'object with null values', text: '{"a":null,"b":[null]}' },
  { label: 'list of NUL strings', text: '["\\u0000"]' },
  { label: 'list of lone surrogates', text: '["\\ud800"]' },
  { label: 'duplicate keys', text: '{"a":1,"a":[2]}' },
  // Narrows, the richest JSON parameter: odd operators and operands.
  { label: 'narrow of NUL search', text: '[{"operator":"search","operand":"\\u0000"}]' },
  { label: 'narrow of regex characters', text: '[["search","(*\\\\[+?$^"],["topic","(*"]]' },
  { label: 'narrow of long search', text: `[["search","${'word '.repeat(2000)}"]]` },
  { label: 'narrow of odd ids', text: '[["id","1e400"],["near","-1"],["with","NaN"]]' },
  { label: 'narrow of odd people', text: '[["dm","a@b.c,<script>,,"],["sender","\\ud800"],["dm-including",""]]' },
  { label: 'narrow of unknown operators', text: '[["has","x"],["is","y"],["in","z"],["__proto__","x"]]' },
  { label: 'narrow negated everything', text: '[{"operator":"channel","operand":"Denmark","negated":true}]' },
];

/** Path segments, already percent-encoded as they go in the URL. */
export const pathValues: WireValue[] = (<WireValue[]>[
  { label: 'zero', text: '0' },
  { label: 'negative', text: '-1' },
  { label: 'float', text: '1.5' },
  { label: 'word', text: 'abc' },
  { label: 'huge', text: '9'.repeat(40) },
  { label: 'beyond 2^53', text: '9007199254740993' },
  { label: 'NUL', text: '%00' },
  { label: 'invalid UTF-8', text: '%FF' },
  { label: 'encoded slash', text: '..%2F..%2Fetc' },
  { label: 'emoji', text: '%F0%9F%98%80' },
  { label: 'space', text: '%20' },
  { label: 'long', text: 'a'.repeat(4000) },
]).map((value) => ({ ...value, encoded: true }));

/** Raw JSON texts for a property of a JSON body, where values keep their types. */
export const typedJsonTexts: WireValue[] = [
  { label: 'null', text: 'null' },
  { label: 'float', text: '1.5' },
  { label: 'negative', text: '-1' },
  { label: 'beyond 2^53', text: '9007199254740993' },
  { label: 'overflow to Infinity', text: '1e400' },
  { label: 'object', text: '{"a":1}' },
  { label: 'list', text: '[1,"x",null]' },
  { label: 'boolean', text: 'true' },
  { label: 'lone surrogate', text: '"\\ud800"' },
  { label: 'NUL', text: '"a\\u0000b"' },
  { label: 'deep list', text: deepArray(5000) },
  { label: 'list of 10,000 objects', text: `[${range(10_000, () => '{}')}]` },
];
