import type { Fence } from './fence.js';

/**
 * Tables of rows under a two-part key, shaped after Cassandra: `partition`
 * groups rows that are read together, `sort` orders them inside the
 * partition (compared as strings). Values are bytes; the runtime owns the
 * codec.
 */
export interface StoreKey {
  table: string;
  partition: string;
  sort: string;
}

/**
 * A row change. `shared` marks a row that actors of several shards write (an
 * index such as a message's location): journal positions of different shards
 * do not compare, so such rows are ordered by wall-clock time instead.
 */
export type StoreWrite = ((StoreKey & { op: 'put'; value: Uint8Array }) | (StoreKey & { op: 'del' })) & {
  shared?: boolean;
};

export interface ScanOptions {
  /** Rows with sort > gt / >= gte / < lt / <= lte. */
  gt?: string;
  gte?: string;
  lt?: string;
  lte?: string;
  reverse?: boolean;
  limit?: number;
}

export interface StoreRow {
  sort: string;
  value: Uint8Array;
}

export interface StateStore {
  get(key: StoreKey): Promise<Uint8Array | undefined>;
  /** The rows of several keys in one read, in the keys' order (`readMany` falls back to one `get` each). */
  getMany?(keys: StoreKey[]): Promise<Array<Uint8Array | undefined>>;
  /**
   * Applies the writes atomically where the engine can (one partition at
   * least). With `sync`, resolves once durable on disk. With `fence`, rejects
   * with `FencedError` when the epoch is stale for the shard. `position` is
   * the journal position the writes derive from: an engine with
   * last-write-wins cells (Cassandra) uses it as the write timestamp, so that
   * a late write of an old owner never overwrites what a newer one wrote.
   */
  write(writes: StoreWrite[], opts?: { sync?: boolean; fence?: Fence; position?: number }): Promise<void>;
  scan(table: string, partition: string, opts?: ScanOptions): AsyncIterable<StoreRow>;
  /**
   * Raises the shard's epoch to `fence.epoch` unless a newer one is recorded,
   * and resolves with the epoch now in force. A new owner calls it when it
   * takes the shard, which fences every older owner's later writes.
   */
  claim(fence: Fence): Promise<number>;
  close(): Promise<void>;
}
