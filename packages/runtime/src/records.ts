import { decode, encode } from '@chat/protocol';
import type { ActorAddress } from '@chat/protocol';
import type { AnyBehavior, TypedEvent } from './behavior.js';
import type { Outgoing } from './outbox.js';
import type { StoreKey } from './ports/index.js';

/**
 * What the runtime writes: one journal record per handled message that
 * changed state, and one snapshot per actor at checkpoints. Both carry a
 * version so that old records still decode after a change (see the golden
 * fixtures in test/fixtures).
 */
export const RECORD_VERSION = 1;

export interface JournalEntry {
  /** Version of this record's framing. */
  rv: typeof RECORD_VERSION;
  /** The behavior's `eventVersion` when the events were written. */
  ev: number;
  events: TypedEvent[];
  /** Idempotency key of the command and the reply it got, for retries. */
  idem?: string;
  reply?: unknown;
  /** The tells and fan-outs the change owes, sent once it is durable and again until confirmed (`Outbox`). */
  out?: Outgoing[];
}

/** The partition's checkpoint: replay starts after `position`. */
export interface Checkpoint {
  position: number;
  /** Actors that refuse passivation, woken after recovery. */
  resident?: string[];
  /** Owed messages not yet confirmed when it was taken, by key. */
  outbox?: Array<[string, Outgoing]>;
}

export interface Snapshot {
  rv: typeof RECORD_VERSION;
  /** Journal position of the last record reflected in `state`. */
  position: number;
  state: object;
  /** Recent idempotency keys with their replies, oldest first. */
  idem: Array<[string, unknown]>;
}

export const encodeEntry = (entry: JournalEntry) => encode(entry);

export function decodeEntry(bytes: Uint8Array, behavior: AnyBehavior): JournalEntry {
  const entry = decode<JournalEntry>(bytes);
  if (entry.rv !== RECORD_VERSION) throw new Error(`unknown journal record version ${entry.rv}`);
  if (entry.ev !== behavior.eventVersion) {
    if (!behavior.upcast) throw new Error(`${behavior.type}: no upcast from event version ${entry.ev}`);
    entry.events = entry.events.map((e) => behavior.upcast!(e, entry.ev));
  }
  return entry;
}

export const snapshotKey = (a: ActorAddress): StoreKey => ({
  table: 'snapshot',
  partition: `${a.type}/${a.key}`,
  sort: '',
});

export const checkpointKey = (type: string, shard: number): StoreKey => ({
  table: 'checkpoint',
  partition: `${type}.${shard}`,
  sort: '',
});

export const encodeSnapshot = (s: Snapshot) => encode(s);

export function decodeSnapshot(bytes: Uint8Array): Snapshot {
  const snapshot = decode<Snapshot>(bytes);
  if (snapshot.rv !== RECORD_VERSION) throw new Error(`unknown snapshot version ${snapshot.rv}`);
  return snapshot;
}

/** A bounded map of idempotency key -> reply, evicting the oldest. */
export class IdempotencyCache {
  private readonly entries = new Map<string, unknown>();
  constructor(private readonly capacity: number) {}

  has(key: string): boolean {
    return this.entries.has(key);
  }
  get(key: string): unknown {
    return this.entries.get(key);
  }
  set(key: string, reply: unknown): void {
    this.entries.delete(key);
    this.entries.set(key, reply);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }
  toJSON(): Array<[string, unknown]> {
    return [...this.entries];
  }
  static from(entries: Array<[string, unknown]>, capacity: number): IdempotencyCache {
    const cache = new IdempotencyCache(capacity);
    for (const [k, v] of entries) cache.set(k, v);
    return cache;
  }
}
