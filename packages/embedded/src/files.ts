import { randomUUID } from 'node:crypto';
import { mkdir, open, rename, rm, unlink, type FileHandle } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve, sep } from 'node:path';
import type { FileStat, FileStore } from '@chat/runtime';
import { isErrnoCode, syncDir } from './fsutil.js';

/**
 * Each stored file starts with a small header holding its content type:
 *
 *   "CHF1" | u32 BE headerLength | header JSON | bytes
 *
 * One file rather than data + sidecar, so that a single rename publishes the
 * bytes and their content type together, also when a path is overwritten.
 */
const MAGIC = Buffer.from('CHF1');
const PREFIX = MAGIC.length + 4;
const MAX_HEADER = 64 * 1024;

interface Header {
  contentType: string;
}

function encodeHeader(header: Header): Buffer {
  const json = Buffer.from(JSON.stringify(header));
  const prefix = Buffer.alloc(PREFIX);
  MAGIC.copy(prefix);
  prefix.writeUInt32BE(json.length, MAGIC.length);
  return Buffer.concat([prefix, json]);
}

async function readHeader(fh: FileHandle, path: string): Promise<Header & { dataStart: number }> {
  const prefix = Buffer.alloc(PREFIX);
  await fh.read(prefix, 0, PREFIX, 0);
  const length = prefix.readUInt32BE(MAGIC.length);
  if (!prefix.subarray(0, MAGIC.length).equals(MAGIC) || length > MAX_HEADER) {
    throw new Error(`not a stored file: ${path}`);
  }
  const json = Buffer.alloc(length);
  const { bytesRead } = await fh.read(json, 0, length, PREFIX);
  if (bytesRead !== length) throw new Error(`truncated header: ${path}`);
  const header = JSON.parse(json.toString('utf8')) as Header;
  return { contentType: header.contentType, dataStart: PREFIX + length };
}

async function writeAll(fh: FileHandle, data: Uint8Array): Promise<void> {
  let done = 0;
  while (done < data.length) {
    const { bytesWritten } = await fh.write(data, done, data.length - done);
    done += bytesWritten;
  }
}

/**
 * Uploads and avatars as files under a root directory:
 * `root/files/<path>` holds the stored files, `root/tmp/` the uploads in
 * progress. Being on the same file system, a finished upload is published by
 * an atomic rename after fsync, so a reader (or a restart after a crash)
 * sees either the whole file or none of it.
 */
export class LocalFileStore implements FileStore {
  private readonly filesDir: string;
  private readonly tmpDir: string;

  private constructor(root: string) {
    this.filesDir = join(root, 'files');
    this.tmpDir = join(root, 'tmp');
  }

  /**
   * `clearTmp: false` keeps `tmp/`: another process (an edge worker beside
   * the one that opened the folder first) may be writing there.
   */
  static async open(root: string, { clearTmp = true } = {}): Promise<LocalFileStore> {
    const store = new LocalFileStore(resolve(root));
    await mkdir(store.filesDir, { recursive: true });
    // Anything left in tmp is an upload a crash interrupted: never visible, so drop it.
    if (clearTmp) await rm(store.tmpDir, { recursive: true, force: true });
    await mkdir(store.tmpDir, { recursive: true });
    return store;
  }

  async put(path: string, body: AsyncIterable<Uint8Array>, contentType: string): Promise<FileStat> {
    const target = this.resolvePath(path);
    const tmp = join(this.tmpDir, randomUUID());
    const fh = await open(tmp, 'wx');
    let size = 0;
    try {
      try {
        await writeAll(fh, encodeHeader({ contentType }));
        for await (const chunk of body) {
          await writeAll(fh, chunk);
          size += chunk.length;
        }
        await fh.sync();
      } finally {
        await fh.close();
      }
      await this.mkdirs(dirname(target));
      await rename(tmp, target);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
    await syncDir(dirname(target));
    return { size, contentType };
  }

  async stat(path: string): Promise<FileStat | undefined> {
    const target = this.resolvePath(path);
    const fh = await openIfExists(target);
    if (!fh) return undefined;
    try {
      const { contentType, dataStart } = await readHeader(fh, target);
      return { size: (await fh.stat()).size - dataStart, contentType };
    } finally {
      await fh.close();
    }
  }

  /**
   * Opens the file now, so the bytes are those of the version present at the
   * call even if the path is overwritten or deleted later. The stream closes
   * the file when consumed or destroyed (e.g. a `break` out of `for await`).
   */
  async get(path: string): Promise<AsyncIterable<Uint8Array> | undefined> {
    const target = this.resolvePath(path);
    const fh = await openIfExists(target);
    if (!fh) return undefined;
    try {
      const { dataStart } = await readHeader(fh, target);
      return fh.createReadStream({ start: dataStart, autoClose: true });
    } catch (err) {
      await fh.close();
      throw err;
    }
  }

  async delete(path: string): Promise<void> {
    const target = this.resolvePath(path);
    try {
      await unlink(target);
    } catch (err) {
      if (isErrnoCode(err, 'ENOENT')) return;
      throw err;
    }
    await syncDir(dirname(target));
  }

  async close(): Promise<void> {
    // Nothing is held open between calls.
  }

  private resolvePath(path: string): string {
    const refuse = (why: string) => new Error(`invalid file path ${JSON.stringify(path)}: ${why}`);
    if (path === '') throw refuse('empty');
    if (path.includes('\u0000') || path.includes('\\')) throw refuse('NUL or backslash');
    if (path.startsWith('/') || isAbsolute(path)) throw refuse('absolute');
    const parts = path.split('/');
    if (parts.some((p) => p === '' || p === '.' || p === '..')) throw refuse('empty, . or .. segment');
    const full = resolve(this.filesDir, ...parts);
    // Belt and braces: whatever the checks above missed must still land inside.
    if (!full.startsWith(this.filesDir + sep)) throw refuse('escapes the root');
    return full;
  }

  /** mkdir -p, syncing each new directory's entry in its parent. */
  private async mkdirs(dir: string): Promise<void> {
    const first = await mkdir(dir, { recursive: true });
    if (first === undefined) return;
    for (let d = dir; ; d = dirname(d)) {
      await syncDir(dirname(d));
      if (d === first) break;
    }
  }
}

async function openIfExists(path: string): Promise<FileHandle | undefined> {
  try {
    return await open(path, 'r');
  } catch (err) {
    if (isErrnoCode(err, 'ENOENT') || isErrnoCode(err, 'ENOTDIR')) return undefined;
    throw err;
  }
}
