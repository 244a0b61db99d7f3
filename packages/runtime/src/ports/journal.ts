import type { Fence } from './fence.js';

/**
 * The ordered, durable record of state changes. It is partitioned like Kafka:
 * a partition is (actor type, shard), and positions increase within a
 * partition. A record's `key` is the actor key it belongs to.
 */
export interface JournalPartition {
  topic: string;
  shard: number;
}

export interface JournalAppend {
  key: string;
  data: Uint8Array;
}

export interface JournalRecord extends JournalAppend {
  /** Increasing within the partition; opaque otherwise. */
  position: number;
}

export interface Journal {
  /**
   * Appends records to one partition, in order. Resolves with their positions
   * only once they are durable (fsync, or every in-sync replica acked).
   * Rejects with `FencedError` when `fence.epoch` is stale for the shard.
   *
   * Appends to one partition take effect in call order, and when one fails,
   * every later append to that partition issued before the failure was
   * reported fails too: the runtime issues appends without waiting for the
   * previous one (pipelining) and relies on the journal never keeping a
   * record whose predecessor it lost.
   */
  append(partition: JournalPartition, records: JournalAppend[], fence: Fence): Promise<number[]>;
  /**
   * Called by a new owner of a shard before it reads the shard's partitions
   * to recover them: once it resolves, appends of every older owner of the
   * shard are refused (Kafka: the shard's transactional producer is taken
   * over). A journal that cannot be written by two processes need not have it.
   */
  fence?(fence: Fence): Promise<void>;
  /** Every record of the partition with a position above `after`, in order. */
  read(partition: JournalPartition, after: number): AsyncIterable<JournalRecord>;
  /**
   * Records at or below `upTo` are no longer needed for recovery (their effect
   * is in the store). The adapter may drop them; it need not.
   */
  release(partition: JournalPartition, upTo: number): Promise<void>;
  close(): Promise<void>;
}
