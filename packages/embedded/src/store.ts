import { ClassicLevel } from 'classic-level';
import {
  FencedError,
  type Fence,
  type ScanOptions,
  type StateStore,
  type StoreKey,
  type StoreRow,
  type StoreWrite,
} from '@chat/runtime';

/**
 * Row keys are `table \0 partition \0 sort`. LevelDB orders keys bytewise,
 * so with NUL banned from table and partition names:
 * - a partition's rows are exactly the keys starting with its prefix, and no
 *   other partition's keys (not even `ab` next to `a`) fall between them;
 * - within the prefix, keys sort as their `sort` strings' UTF-8 bytes, i.e.
 *   by code point (which equals JS string order outside astral characters).
 * Meta keys start with NUL, which no row key can since tables are non-empty.
 */
const SEP = '\u0000';
const EPOCH_PREFIX = `${SEP}epoch${SEP}`;

function checkName(kind: string, name: string): void {
  if (name.includes(SEP)) throw new Error(`store ${kind} must not contain NUL: ${JSON.stringify(name)}`);
}

function partitionPrefix(table: string, partition: string): string {
  if (table === '') throw new Error('store table name must not be empty');
  checkName('table', table);
  checkName('partition', partition);
  return `${table}${SEP}${partition}${SEP}`;
}

const rowKey = (k: StoreKey) => partitionPrefix(k.table, k.partition) + k.sort;

/**
 * The embedded state store, on LevelDB (classic-level). A write is one
 * atomic batch. With `sync`, LevelDB fsyncs its log before resolving; without,
 * a crash of the machine (not of the process) may lose the latest writes,
 * which the journal covers since the store is rebuilt from snapshot + journal.
 *
 * Fencing: LevelDB locks its directory, so this process is the only writer,
 * and the epochs can be checked in memory; they are persisted (synced) on
 * `claim` so they survive restarts.
 */
export class LevelStore implements StateStore {
  private readonly epochs = new Map<number, number>();
  /** Fenced writes in flight per shard, which a `claim` waits out. */
  private readonly inflight = new Map<number, Set<Promise<void>>>();
  private persisting: Promise<void> = Promise.resolve();

  private constructor(private readonly db: ClassicLevel<string, Uint8Array>) {}

  static async open(dir: string): Promise<LevelStore> {
    const db = new ClassicLevel<string, Uint8Array>(dir, { keyEncoding: 'utf8', valueEncoding: 'view' });
    await db.open();
    const store = new LevelStore(db);
    for await (const [key, value] of db.iterator({ gte: EPOCH_PREFIX, lt: `${SEP}epoch\u0001` })) {
      store.epochs.set(Number(key.slice(EPOCH_PREFIX.length)), decodeEpoch(value));
    }
    return store;
  }

  get(key: StoreKey): Promise<Uint8Array | undefined> {
    return this.db.get(rowKey(key));
  }

  getMany(keys: StoreKey[]): Promise<Array<Uint8Array | undefined>> {
    return this.db.getMany(keys.map(rowKey));
  }

  // Everything up to the batch call runs synchronously, so the fence check
  // and the write cannot be split by a `claim`.
  async write(writes: StoreWrite[], opts: { sync?: boolean; fence?: Fence } = {}): Promise<void> {
    const { fence } = opts;
    if (fence) {
      const current = this.epochs.get(fence.shard);
      if (current !== undefined && fence.epoch < current) throw new FencedError(fence, current);
    }
    const ops = writes.map((w) =>
      w.op === 'put'
        ? { type: 'put' as const, key: rowKey(w), value: w.value }
        : { type: 'del' as const, key: rowKey(w) },
    );
    const done = this.db.batch(ops, { sync: opts.sync ?? false });
    if (fence) this.track(fence.shard, done);
    await done;
  }

  async *scan(table: string, partition: string, opts: ScanOptions = {}): AsyncIterable<StoreRow> {
    const prefix = partitionPrefix(table, partition);
    // Bounds default to the whole partition: [prefix, prefix with its last NUL as \x01).
    const range: { gt?: string; gte?: string; lt?: string; lte?: string } = {};
    if (opts.gt !== undefined) range.gt = prefix + opts.gt;
    else range.gte = prefix + (opts.gte ?? '');
    if (opts.lt !== undefined) range.lt = prefix + opts.lt;
    else if (opts.lte !== undefined) range.lte = prefix + opts.lte;
    else range.lt = `${prefix.slice(0, -1)}\u0001`;
    const iterator = this.db.iterator({ ...range, reverse: opts.reverse ?? false, limit: opts.limit ?? -1 });
    for await (const [key, value] of iterator) {
      yield { sort: key.slice(prefix.length), value };
    }
  }

  async claim(fence: Fence): Promise<number> {
    const current = this.epochs.get(fence.shard);
    if (current !== undefined && current >= fence.epoch) return current;
    // Raised before the disk write so that no stale write is accepted from
    // now on; raising too early only fences more, never less.
    this.epochs.set(fence.shard, fence.epoch);
    // Claims persist one after another, each writing the epoch in force when
    // it runs, so two racing claims cannot leave the lower epoch on disk.
    const persist = this.persisting.then(() =>
      this.db.put(`${EPOCH_PREFIX}${fence.shard}`, encodeEpoch(this.epochs.get(fence.shard)!), { sync: true }),
    );
    this.persisting = persist.catch(() => undefined);
    await persist;
    // Writes accepted under the older epoch may still be landing; the new
    // owner reads the store after this resolves, so they must be done first.
    await Promise.allSettled([...(this.inflight.get(fence.shard) ?? [])]);
    return this.epochs.get(fence.shard)!;
  }

  close(): Promise<void> {
    return this.db.close();
  }

  private track(shard: number, done: Promise<void>): void {
    let set = this.inflight.get(shard);
    if (!set) this.inflight.set(shard, (set = new Set()));
    set.add(done);
    const forget = () => {
      set.delete(done);
      if (set.size === 0 && this.inflight.get(shard) === set) this.inflight.delete(shard);
    };
    done.then(forget, forget);
  }
}

function encodeEpoch(epoch: number): Uint8Array {
  const buf = new Uint8Array(8);
  new DataView(buf.buffer).setFloat64(0, epoch);
  return buf;
}

function decodeEpoch(bytes: Uint8Array): number {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getFloat64(0);
}
