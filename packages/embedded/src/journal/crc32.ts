import * as zlib from 'node:zlib';

/**
 * CRC-32 (IEEE, as in zlib and gzip). Node ships a native one from 20.15 on;
 * the table version keeps older 20.x runtimes working. Both give the same
 * value, so a log written by one is readable by the other.
 */
const TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32Table(data: Uint8Array): number {
  let crc = 0xffffffff;
  for (let i = 0; i < data.length; i++) crc = TABLE[(crc ^ data[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

const native = (zlib as { crc32?: (data: Uint8Array) => number }).crc32;

export const crc32: (data: Uint8Array) => number =
  typeof native === 'function' ? (data) => native(data) >>> 0 : crc32Table;

/** Exposed so a test can check that both implementations agree. */
export const crc32Portable = crc32Table;
