import { randomFillSync } from 'node:crypto';

const HEX = Buffer.from('0123456789abcdef', 'latin1');
/** Random bytes for 256 ids, refilled when used up. */
const random = Buffer.alloc(16 * 256);
let used = random.length;
const text = Buffer.alloc(36);

/**
 * A random (version 4) UUID, as `crypto.randomUUID` gives, as one flat
 * string: `randomUUID` joins its parts into a tree of about twenty strings
 * (480 bytes against 56), which every request, a waiting long poll's too,
 * keeps alive as its id.
 */
export function requestUuid(): string {
  if (used === random.length) {
    randomFillSync(random);
    used = 0;
  }
  random[used + 6] = (random[used + 6]! & 0x0f) | 0x40;
  random[used + 8] = (random[used + 8]! & 0x3f) | 0x80;
  let at = 0;
  for (let i = 0; i < 16; i++) {
    if (at === 8 || at === 13 || at === 18 || at === 23) text[at++] = 0x2d;
    const byte = random[used + i]!;
    text[at++] = HEX[byte >> 4]!;
    text[at++] = HEX[byte & 15]!;
  }
  used += 16;
  return text.toString('latin1', 0, 36);
}
