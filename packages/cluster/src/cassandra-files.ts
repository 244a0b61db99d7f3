import cassandra from 'cassandra-driver';
import { silentLogger, type FileStat, type FileStore, type Logger } from '@chat/runtime';
import { openKeyspace, type CassandraOptions } from './migrations.js';
import { checkFilePath, rechunk, Window } from './file-chunks.js';

const { types } = cassandra;
type Uuid = cassandra.types.Uuid;

export interface CassandraFileStoreOptions extends CassandraOptions {
  /** Bytes per chunk row; default 256 KiB. */
  chunkBytes?: number;
  /** How long the chunks of a replaced or deleted file stay for readers still streaming it; default 60 s. */
  graceMs?: number;
}

interface Current {
  upload: Uuid;
  size: number;
  contentType: string;
  chunks: number;
}

/**
 * Uploads and avatars in Cassandra. A put writes its chunks under a fresh
 * upload id, then points the `files` row at them: the row is written last, so
 * a file is visible only once complete, and a reader follows the one upload
 * id it read, so it sees the old file or the new one, never a mix.
 *
 * Every change of a `files` row is a lightweight transaction conditioned on
 * the upload it replaces, so concurrent puts and deletes of a path from many
 * processes each learn exactly which upload they displaced, and drop its
 * chunks after `graceMs` (or at `close`). Readers still streaming a displaced
 * file past the grace period get an error, never other bytes. An upload whose
 * process dies before the row is written leaves unreachable chunks behind
 * (storage only; nothing sweeps them yet).
 */
export class CassandraFileStore implements FileStore {
  private readonly chunkBytes: number;
  private readonly graceMs: number;
  private readonly drops = new Map<string, NodeJS.Timeout>();

  private constructor(
    private readonly client: cassandra.Client,
    private readonly log: Logger,
    opts: CassandraFileStoreOptions,
  ) {
    this.chunkBytes = opts.chunkBytes ?? 256 * 1024;
    this.graceMs = opts.graceMs ?? 60_000;
  }

  static async open(opts: CassandraFileStoreOptions): Promise<CassandraFileStore> {
    return new CassandraFileStore(await openKeyspace(opts), opts.log ?? silentLogger, opts);
  }

  async put(path: string, body: AsyncIterable<Uint8Array>, contentType: string): Promise<FileStat> {
    checkFilePath(path);
    const upload = types.Uuid.random();
    const window = new Window(4);
    let chunks = 0;
    let size = 0;
    try {
      for await (const data of rechunk(body, this.chunkBytes)) {
        await window.add(
          this.client.execute('INSERT INTO file_chunks (upload, n, data) VALUES (?, ?, ?)', [upload, chunks++, data]),
        );
        size += data.length;
      }
      await window.drain();
    } catch (err) {
      await window.settle();
      await this.dropChunks(upload);
      throw err;
    }
    const replaced = await this.swap(path, { upload, size, contentType, chunks });
    if (replaced) this.dropLater(replaced);
    return { size, contentType };
  }

  async stat(path: string): Promise<FileStat | undefined> {
    const current = await this.current(path, false);
    return current && { size: current.size, contentType: current.contentType };
  }

  async get(path: string): Promise<AsyncIterable<Uint8Array> | undefined> {
    const current = await this.current(path, false);
    if (!current) return undefined;
    const fetch = async (n: number): Promise<Uint8Array> => {
      const row = (
        await this.client.execute('SELECT data FROM file_chunks WHERE upload = ? AND n = ?', [current.upload, n])
      ).first();
      if (!row) throw new Error(`file ${JSON.stringify(path)} was replaced or deleted while being read`);
      return row['data'] as Buffer;
    };
    return (async function* () {
      // One chunk read ahead, so the next round trip overlaps the consumer's work.
      let next = current.chunks > 0 ? fetch(0) : undefined;
      for (let n = 0; n < current.chunks; n++) {
        const data = await next!;
        if (n + 1 < current.chunks) {
          next = fetch(n + 1);
          next.catch(() => undefined); // reported when awaited; the consumer may stop before
        }
        yield data;
      }
    })();
  }

  async delete(path: string): Promise<void> {
    let expected = (await this.current(path, true))?.upload;
    while (expected) {
      const rs = await this.client.execute('DELETE FROM files WHERE path = ? IF upload = ?', [path, expected]);
      const row = rs.first()!;
      if (row['[applied]'] === true) return this.dropLater(expected);
      // Replaced meanwhile: delete what is there now (nothing comes back if it is gone).
      expected = (row['upload'] as Uuid | null | undefined) ?? undefined;
    }
  }

  async close(): Promise<void> {
    const uploads = [...this.drops.keys()];
    for (const timer of this.drops.values()) clearTimeout(timer);
    this.drops.clear();
    await Promise.all(uploads.map((id) => this.dropChunks(types.Uuid.fromString(id))));
    await this.client.shutdown();
  }

  /** Points the path at the new upload; resolves with the upload it replaced. */
  private async swap(path: string, next: Current): Promise<Uuid | undefined> {
    const values = [next.upload, BigInt(next.size), next.contentType, next.chunks];
    let expected: Uuid | undefined;
    for (let attempt = 0; attempt < 50; attempt++) {
      const rs = expected
        ? await this.client.execute(
            'UPDATE files SET upload = ?, size = ?, content_type = ?, chunks = ? WHERE path = ? IF upload = ?',
            [...values, path, expected],
          )
        : await this.client.execute(
            'INSERT INTO files (upload, size, content_type, chunks, path) VALUES (?, ?, ?, ?, ?) IF NOT EXISTS',
            [...values, path],
          );
      const row = rs.first()!;
      if (row['[applied]'] === true) return expected;
      // Someone else changed the row: what it holds now is what we replace.
      expected = (row['upload'] as Uuid | null) ?? undefined;
    }
    throw new Error(`file ${JSON.stringify(path)}: too many concurrent writers`);
  }

  private async current(path: string, serial: boolean): Promise<Current | undefined> {
    checkFilePath(path);
    const rs = await this.client.execute(
      'SELECT upload, size, content_type, chunks FROM files WHERE path = ?',
      [path],
      serial ? { consistency: types.consistencies.localSerial } : {},
    );
    const row = rs.first();
    if (!row) return undefined;
    return {
      upload: row['upload'] as Uuid,
      size: Number(row['size']),
      contentType: row['content_type'] as string,
      chunks: row['chunks'] as number,
    };
  }

  private dropLater(upload: Uuid): void {
    const id = upload.toString();
    const timer = setTimeout(() => {
      this.drops.delete(id);
      void this.dropChunks(upload);
    }, this.graceMs);
    timer.unref();
    this.drops.set(id, timer);
  }

  private async dropChunks(upload: Uuid): Promise<void> {
    try {
      await this.client.execute('DELETE FROM file_chunks WHERE upload = ?', [upload]);
    } catch (err) {
      this.log.warn({ err, upload: upload.toString() }, 'could not drop file chunks; they stay unreachable');
    }
  }
}
