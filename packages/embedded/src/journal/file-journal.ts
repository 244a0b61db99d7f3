import { mkdir, readdir } from 'node:fs/promises';
import {
  FencedError,
  type Fence,
  type Journal,
  type JournalAppend,
  type JournalPartition,
  type JournalRecord,
} from '@chat/runtime';
import { syncDir } from '../fsutil.js';
import { decodeFrame, encodeRecord, scanSegment } from './format.js';
import { partitionKey, PartitionIndex } from './partition-index.js';
import { Segment } from './segment.js';

export interface FileJournalOptions {
  /** A segment rolls over once it would grow past this. Default 64 MiB. */
  segmentBytes?: number;
  /** Largest single disk read when replaying a partition. Default 1 MiB. */
  readChunkBytes?: number;
}

export interface JournalStats {
  /** fdatasync/fsync calls made, on segments and on the directory. */
  readonly fsyncs: number;
  /** `append` calls that completed (were made durable). */
  readonly appends: number;
  /** Records made durable. */
  readonly records: number;
}

/** One `append` call waiting for the writer. */
interface Pending {
  partition: string;
  positions: number[];
  frames: Buffer[];
  bytes: number;
  resolve(positions: number[]): void;
  reject(err: unknown): void;
}

/**
 * The embedded journal: one append-only log on local disk for every
 * partition, split into segment files.
 *
 * One log rather than one per partition, because durability costs one
 * fdatasync per write and the writer makes a single write + fdatasync for
 * everything queued meanwhile (group commit): with one log, appends to all
 * partitions share that cost. An append resolves only after its fdatasync.
 *
 * Positions are one global sequence, so they increase within each partition
 * too. An in-memory index per partition, rebuilt by scanning the segments on
 * open, says where each record lives. A record enters the index only once it
 * is durable, so a reader never sees a record that a crash could take back.
 */
export class FileJournal implements Journal {
  private readonly counters = { fsyncs: 0, appends: 0, records: 0 };
  private segments: Segment[] = [];
  private readonly index = new PartitionIndex();
  private readonly releasedUpTo = new Map<string, number>();
  /** Highest epoch seen per shard, including the epochs stored in records. */
  private readonly epochs = new Map<number, number>();
  private nextPosition = 1;
  private queue: Pending[] = [];
  /**
   * Cleared by the writer in the same tick as it finds the queue empty: an
   * append made by a continuation of the last resolved batch must start a
   * new writer rather than wait for one that is already finishing.
   */
  private writerRunning = false;
  private writing: Promise<void> | undefined;
  /** Set when a write or sync failed: see `drain`. */
  private failure: Error | undefined;
  private closed = false;
  private readonly segmentBytes: number;
  private readonly readChunkBytes: number;

  private constructor(
    readonly dir: string,
    opts: FileJournalOptions,
  ) {
    this.segmentBytes = opts.segmentBytes ?? 64 * 1024 * 1024;
    this.readChunkBytes = opts.readChunkBytes ?? 1024 * 1024;
  }

  get stats(): JournalStats {
    return this.counters;
  }

  /**
   * Opens (or creates) the log in `dir`. A torn or corrupt tail of the last
   * segment, left by a crash mid-write, is cut off so that new records follow
   * the last good one directly. Damage anywhere else cannot come from a crash
   * (sealed segments were synced before the next one was started), so it is
   * refused rather than silently dropping acknowledged records.
   */
  static async open(dir: string, opts: FileJournalOptions = {}): Promise<FileJournal> {
    const journal = new FileJournal(dir, opts);
    await mkdir(dir, { recursive: true });
    const names = (await readdir(dir)).filter((n) => Segment.parseName(n) !== undefined).sort();
    try {
      let last = 0;
      for (const [i, name] of names.entries()) {
        const segment = await Segment.openExisting(dir, name);
        journal.segments.push(segment);
        // Segments are bounded (segmentBytes), so reading one whole is fine.
        const buf = await segment.handle.readFile();
        const { records, validBytes } = scanSegment(buf, last);
        if (validBytes < buf.length) {
          if (i < names.length - 1) {
            throw new Error(`journal segment ${segment.path} is damaged at byte ${validBytes}`);
          }
          await segment.handle.truncate(validBytes);
          await segment.handle.datasync();
          journal.counters.fsyncs++;
        }
        segment.size = validBytes;
        for (const { record, offset, length } of records) {
          const key = partitionKey(record);
          journal.index.add(key, { position: record.position, segment, offset, length });
          journal.raiseEpoch(record.shard, record.epoch);
          last = record.position;
        }
      }
      // The last segment is never deleted, so its name keeps positions
      // increasing across restarts even when every record was released.
      const lastBase = journal.segments.at(-1)?.base ?? 1;
      journal.nextPosition = Math.max(last + 1, lastBase);
      if (journal.segments.length === 0) await journal.roll(journal.nextPosition);
    } catch (err) {
      await Promise.allSettled(journal.segments.map((s) => s.close()));
      throw err;
    }
    return journal;
  }

  append(partition: JournalPartition, records: JournalAppend[], fence: Fence): Promise<number[]> {
    if (this.closed) return Promise.reject(new Error('journal is closed'));
    if (this.failure) return Promise.reject(this.failure);
    if (!Number.isInteger(partition.shard) || partition.shard < 0 || partition.shard > 0xffffffff) {
      return Promise.reject(new Error(`invalid shard ${partition.shard}`));
    }
    if (!Number.isFinite(fence.epoch)) return Promise.reject(new Error(`invalid epoch ${fence.epoch}`));
    // Records store one shard, which on open restores that shard's epoch; a
    // fence for another shard would restore the wrong one.
    if (fence.shard !== partition.shard) {
      return Promise.reject(new Error(`fence for shard ${fence.shard} used on shard ${partition.shard}`));
    }
    const current = this.epochs.get(fence.shard);
    if (current !== undefined && fence.epoch < current) {
      return Promise.reject(new FencedError(fence, current));
    }
    this.raiseEpoch(fence.shard, fence.epoch);
    if (records.length === 0) return Promise.resolve([]);

    // Positions are handed out now, in call order, so the order of appends is
    // the order of the log whatever the writer's batching.
    const positions: number[] = [];
    const frames: Buffer[] = [];
    let bytes = 0;
    for (const r of records) {
      const position = this.nextPosition++;
      const frame = encodeRecord({ ...partition, position, epoch: fence.epoch, key: r.key, data: r.data });
      positions.push(position);
      frames.push(frame);
      bytes += frame.length;
    }
    return new Promise<number[]>((resolve, reject) => {
      this.queue.push({ partition: partitionKey(partition), positions, frames, bytes, resolve, reject });
      if (!this.writerRunning) this.writing = this.drain();
    });
  }

  async *read(partition: JournalPartition, after: number): AsyncIterable<JournalRecord> {
    const key = partitionKey(partition);
    let last = after;
    for (;;) {
      // Look the position up again each round: appends and releases may have
      // changed the index while the consumer held us suspended.
      const run = this.index.run(key, last, this.readChunkBytes);
      if (run.length === 0) return;
      const first = run[0]!;
      const tail = run.at(-1)!;
      const buf = await first.segment.read(first.offset, tail.offset + tail.length - first.offset);
      for (const e of run) {
        const frame = decodeFrame(buf, e.offset - first.offset);
        if (!frame || frame.record.position !== e.position) {
          throw new Error(`journal record ${e.position} in ${e.segment.path} is damaged`);
        }
        last = e.position;
        yield { position: e.position, key: frame.record.key, data: new Uint8Array(frame.record.data) };
      }
    }
  }

  /**
   * Release points live in memory only: after a restart the released records
   * are indexed again until released again, which is harmless because
   * readers ask for positions above their snapshot anyway.
   */
  async release(partition: JournalPartition, upTo: number): Promise<void> {
    const key = partitionKey(partition);
    if (upTo <= (this.releasedUpTo.get(key) ?? -Infinity)) return;
    this.releasedUpTo.set(key, upTo);
    this.index.drop(key, upTo);
    // A sealed segment goes once every partition in it is released past its
    // last record there. The active one stays (see `open`).
    const active = this.segments.at(-1);
    const doomed = this.segments.filter(
      (s) => s !== active && [...s.partitions].every(([p, max]) => (this.releasedUpTo.get(p) ?? -Infinity) >= max),
    );
    if (doomed.length === 0) return;
    this.segments = this.segments.filter((s) => !doomed.includes(s));
    await Promise.all(doomed.map((s) => s.delete()));
  }

  /** Waits for queued appends to be written, then closes the files. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.writing;
    await Promise.all(this.segments.map((s) => s.close()));
  }

  /**
   * The writer loop: each round takes everything queued while the previous
   * round was writing, so the batch grows with the load.
   *
   * If a write or fdatasync fails, the file's tail is unknown (after a failed
   * fsync Linux may drop the dirty pages and report success next time), so
   * the journal stops accepting appends; reopening rescans and cuts the tail.
   */
  private async drain(): Promise<void> {
    this.writerRunning = true;
    while (this.queue.length > 0) {
      const batch = this.queue;
      this.queue = [];
      try {
        await this.commit(batch);
      } catch (err) {
        this.failure = err instanceof Error ? err : new Error(String(err));
        for (const p of [...batch, ...this.queue]) p.reject(this.failure);
        this.queue = [];
        break;
      }
      for (const p of batch) {
        this.counters.appends++;
        this.counters.records += p.positions.length;
        p.resolve(p.positions);
      }
    }
    this.writerRunning = false;
  }

  /** Writes a batch with one write + one fdatasync per segment it touches. */
  private async commit(batch: Pending[]): Promise<void> {
    let chunk: Pending[] = [];
    let chunkBytes = 0;
    for (const p of batch) {
      const active = this.segments.at(-1)!;
      const used = active.size + chunkBytes;
      if (used > 0 && used + p.bytes > this.segmentBytes) {
        if (chunk.length > 0) await this.writeChunk(active, chunk);
        await this.roll(p.positions[0]!);
        chunk = [];
        chunkBytes = 0;
      }
      chunk.push(p);
      chunkBytes += p.bytes;
    }
    if (chunk.length > 0) await this.writeChunk(this.segments.at(-1)!, chunk);
  }

  private async writeChunk(segment: Segment, chunk: Pending[]): Promise<void> {
    const buf = Buffer.concat(chunk.flatMap((p) => p.frames));
    const { bytesWritten } = await segment.handle.write(buf, 0, buf.length, segment.size);
    if (bytesWritten !== buf.length) throw new Error(`short write to ${segment.path}`);
    await segment.handle.datasync();
    this.counters.fsyncs++;
    let offset = segment.size;
    segment.size += buf.length;
    for (const p of chunk) {
      p.positions.forEach((position, i) => {
        const length = p.frames[i]!.length;
        this.index.add(p.partition, { position, segment, offset, length });
        offset += length;
      });
    }
  }

  /** Starts a new segment; its directory entry is synced before it gets data. */
  private async roll(base: number): Promise<void> {
    const segment = await Segment.create(this.dir, base);
    this.segments.push(segment);
    await syncDir(this.dir);
    this.counters.fsyncs++;
  }

  private raiseEpoch(shard: number, epoch: number): void {
    if (epoch > (this.epochs.get(shard) ?? -Infinity)) this.epochs.set(shard, epoch);
  }
}
