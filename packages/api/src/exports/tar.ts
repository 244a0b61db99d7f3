import { createGzip } from 'node:zlib';
import { pipeline, Readable } from 'node:stream';

/**
 * A gzipped POSIX tar (ustar) of small files, as the original's exports
 * are: a header of 512 bytes per file, its bytes padded to 512, two empty
 * blocks at the end. Names are ASCII and shorter than 100 bytes here.
 */
const BLOCK = 512;

function octal(value: number, width: number): string {
  return value.toString(8).padStart(width - 1, '0') + '\0';
}

function header(name: string, size: number, mtime: number): Buffer {
  const block = Buffer.alloc(BLOCK);
  block.write(name, 0, 100, 'utf8');
  block.write(octal(0o644, 8), 100, 'ascii');
  block.write(octal(0, 8), 108, 'ascii');
  block.write(octal(0, 8), 116, 'ascii');
  block.write(octal(size, 12), 124, 'ascii');
  block.write(octal(mtime, 12), 136, 'ascii');
  block.write('        ', 148, 'ascii');
  block.write('0', 156, 'ascii');
  block.write('ustar\0', 257, 'ascii');
  block.write('00', 263, 'ascii');
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(octal(sum, 7) + ' ', 148, 'ascii');
  return block;
}

export interface TarEntry {
  name: string;
  data: Buffer;
}

/** The entries as a .tar.gz stream; each entry is produced only when the stream reaches it. */
export function tarGz(entries: AsyncIterable<TarEntry>, mtime: number): AsyncIterable<Uint8Array> {
  async function* tar(): AsyncGenerator<Buffer> {
    for await (const entry of entries) {
      yield header(entry.name, entry.data.length, mtime);
      yield entry.data;
      const pad = (BLOCK - (entry.data.length % BLOCK)) % BLOCK;
      if (pad > 0) yield Buffer.alloc(pad);
    }
    yield Buffer.alloc(2 * BLOCK);
  }
  const gzip = createGzip();
  // A failure while producing the entries reaches whoever reads the gzip (pipe would drop it).
  pipeline(Readable.from(tar()), gzip, () => undefined);
  return gzip;
}
