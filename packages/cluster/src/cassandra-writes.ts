import type { StoreKey, StoreWrite } from '@chat/runtime';

/**
 * Write timestamps. Cassandra keeps, per cell, the write with the highest
 * timestamp, so the timestamp decides which of two writes of a row wins.
 *
 * - A write with a journal `position` is stamped `position + 1` (position -1,
 *   "nothing yet", gives 0). Between such writes the higher position wins,
 *   whatever the order they arrive in: a late write by an old owner of a
 *   shard cannot overwrite what a newer owner wrote from a later position.
 *   Deletions too: a delete at position 4 leaves a row written at 10.
 * - A write without a position is stamped `wall clock (µs) - 2^62`: negative,
 *   so below every position-stamped write. Unpositioned writes order among
 *   themselves by time (last write wins, as in the embedded store), and can
 *   never shadow a position-stamped write, not even for a while: a wall-clock
 *   stamp would beat every journal position for decades. The cost: an
 *   unpositioned write to a row that was ever written with a position has no
 *   effect. The runtime stamps every write it makes, so a row is written either
 *   always with positions (runtime rows) or never (tools, tests, and rows
 *   marked `shared`: written by actors of several shards, whose positions do
 *   not compare).
 */
const UNPOSITIONED_BASE = -(2n ** 62n);
let lastUnpositioned = 0n;

export function timestampOf(position: number | undefined): bigint {
  if (position === undefined) {
    // Strictly increasing within the process, like the driver's own generator.
    const now = BigInt(Date.now()) * 1000n;
    lastUnpositioned = now > lastUnpositioned ? now : lastUnpositioned + 1n;
    return UNPOSITIONED_BASE + lastUnpositioned;
  }
  if (!Number.isSafeInteger(position) || position < -1) throw new Error(`invalid store write position ${position}`);
  return BigInt(position) + 1n;
}

export function checkKey(k: { table: string; partition: string }): void {
  // The same names as the embedded store accepts, so that data moves between them.
  if (k.table === '') throw new Error('store table name must not be empty');
  if (k.table.includes('\u0000')) throw new Error(`store table must not contain NUL: ${JSON.stringify(k.table)}`);
  if (k.partition.includes('\u0000')) {
    throw new Error(`store partition must not contain NUL: ${JSON.stringify(k.partition)}`);
  }
}

const rowId = (k: StoreKey) => JSON.stringify([k.table, k.partition, k.sort]);
const partitionId = (k: StoreKey) => JSON.stringify([k.table, k.partition]);

/**
 * Within one batch every statement has the same timestamp, and Cassandra
 * settles equal timestamps by content (a delete beats a put), not by order.
 * The embedded store applies a batch in order, so only the last write of a
 * row counts: keep that one, at its place.
 */
export function lastWriteOfEachRow(writes: StoreWrite[]): StoreWrite[] {
  const last = new Map<string, number>();
  writes.forEach((w, i) => last.set(rowId(w), i));
  return writes.filter((w, i) => last.get(rowId(w)) === i);
}

/** A rough size of a write in a batch, as Cassandra counts it against its batch limits. */
const sizeOf = (w: StoreWrite) =>
  64 +
  Buffer.byteLength(w.table) +
  Buffer.byteLength(w.partition) +
  Buffer.byteLength(w.sort) +
  (w.op === 'put' ? w.value.byteLength : 0);

export interface WriteGroup {
  writes: StoreWrite[];
  /** More than one partition: needs a logged batch to be atomic. */
  multiPartition: boolean;
}

/**
 * Splits writes into batches Cassandra accepts. A batch touching one partition
 * is atomic and isolated and has no size limit but the mutation size (16 MiB
 * by default); a batch spanning partitions is refused above
 * `batch_size_fail_threshold` (50 KiB by default). So consecutive writes stay
 * together while they hit one partition or stay under `maxBytes`. The groups
 * are applied in order, so a failure leaves a prefix applied: the runtime puts
 * a checkpoint's own row after the snapshots it covers.
 */
export function groupWrites(writes: StoreWrite[], maxBytes: number): WriteGroup[] {
  const groups: WriteGroup[] = [];
  let current: StoreWrite[] = [];
  let parts = new Set<string>();
  let bytes = 0;
  const flush = () => {
    if (current.length > 0) groups.push({ writes: current, multiPartition: parts.size > 1 });
    current = [];
    parts = new Set();
    bytes = 0;
  };
  for (const w of writes) {
    const part = partitionId(w);
    const size = sizeOf(w);
    const spans = parts.size > 1 || (parts.size === 1 && !parts.has(part));
    if (current.length > 0 && spans && bytes + size > maxBytes) flush();
    current.push(w);
    parts.add(part);
    bytes += size;
  }
  flush();
  return groups;
}
