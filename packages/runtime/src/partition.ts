import { decode, encode, type ActorAddress } from '@chat/protocol';
import type { AnyBehavior } from './behavior.js';
import { applyEntry, type ActorCell, type Issued } from './cell.js';
import type { ActorClient } from './client.js';
import type { Logger } from './logger.js';
import { Outbox, outgoingKey } from './outbox.js';
import {
  FencedError,
  type Fence,
  type Journal,
  type JournalPartition,
  type StateStore,
  type StoreWrite,
} from './ports/index.js';
import {
  checkpointKey,
  decodeEntry,
  decodeSnapshot,
  encodeEntry,
  encodeSnapshot,
  IdempotencyCache,
  snapshotKey,
  type Checkpoint,
  type JournalEntry,
} from './records.js';

/** When a partition is checkpointed (`checkpointDue`). */
export interface CheckpointPolicy {
  /** Records since the last checkpoint that make one due at the least... */
  every: number;
  /** ...or this many per actor changed since (its snapshot is written either way: per-record work stays bounded)... */
  perActor: number;
  /** ...but never more than this many (the replay a restart or hand-off may need)... */
  maxRecords: number;
  /** ...and at the latest this long after the first unsaved record. */
  afterMs: number;
}

/**
 * Whether a partition with `unsaved` records over `dirty` changed actors, the
 * first `sinceMs` ago, is due a checkpoint. A checkpoint writes one snapshot per
 * changed actor, so waiting for `perActor` records per actor keeps that work per
 * record bounded (1/perActor) even when every record touches a different actor (a fan-out).
 */
export function checkpointDue(unsaved: number, dirty: number, sinceMs: number, policy: CheckpointPolicy): boolean {
  if (unsaved === 0) return false;
  const records = Math.min(policy.maxRecords, Math.max(policy.every, policy.perActor * dirty));
  return unsaved >= records || sinceMs >= policy.afterMs;
}

export interface PartitionDeps {
  journal: Journal;
  store: StateStore;
  log: Logger;
  /** Sends what the partition's actors owe others (`Outbox`). */
  actors: ActorClient;
  /** How long one attempt of an owed message waits for confirmation. */
  outboxTimeoutMs: number;
  idempotencyCapacity: number;
  checkpoint: CheckpointPolicy;
  /** A checkpoint was saved with this many actor snapshots. */
  onCheckpoint(snapshots: number): void;
  /** Whether this host may still write for the shard (its lease holds); nothing is written once it says no. */
  owned?: () => boolean;
  /** An append failed: the host must drop this partition's actors and recover it. */
  onBroken(partition: Partition): void;
}

/**
 * One journal partition: the actors of one type in one shard. It records
 * their changes and checkpoints them: a checkpoint saves the snapshot of
 * every actor changed since the last one, then remembers the journal
 * position, so that recovery only replays what came after it.
 */
export class Partition {
  readonly id: string;
  readonly journalPartition: JournalPartition;
  private lastPosition = -1;
  private readonly dirty = new Set<ActorCell>();
  private unsaved = 0;
  private firstUnsavedAt = 0;
  private inflight = 0;
  /** Set when an append failed; cleared by `recover`. */
  broken: Error | undefined;
  private drained: (() => void) | undefined;
  private gate: Promise<void> | undefined;
  /**
   * Keys of actors that refuse passivation (`canPassivate` false) as of the
   * last checkpoint. They must run even when nobody writes to them (a live
   * event queue's idle timer), so the host wakes them after recovery.
   */
  readonly resident = new Set<string>();
  /** What the partition's actors owe other actors, until confirmed. */
  private outbox: Outbox;

  constructor(
    readonly behavior: AnyBehavior,
    readonly fence: Fence,
    private readonly deps: PartitionDeps,
  ) {
    this.journalPartition = { topic: behavior.type, shard: fence.shard };
    this.id = `${behavior.type}.${fence.shard}`;
    this.outbox = this.newOutbox();
  }

  private newOutbox(): Outbox {
    return new Outbox(this.deps.actors, this.deps.log, { timeoutMs: this.deps.outboxTimeoutMs });
  }

  /** Owed messages not yet confirmed. */
  get owed(): number {
    return this.outbox.size;
  }

  /** Sends the owed messages that recovery found (call once the shard's subjects are served). */
  flushOutbox(): void {
    this.outbox.flush();
  }

  /** Stops sending: the partition was dropped. What it still owes is in its checkpoint and journal. */
  close(): void {
    this.outbox.close();
  }

  private owe(actor: ActorAddress, position: number, entry: JournalEntry, send: boolean): void {
    entry.out?.forEach((item, i) => this.outbox.add(outgoingKey(actor, position, i), item, send));
  }

  /** Marks an actor's state as saved for good (`ActorBehavior.atRest`); the mark goes with its next snapshot. */
  comeToRest(cell: ActorCell): void {
    if (!this.behavior.atRest || cell.activationFailed) return;
    this.behavior.atRest(cell.state);
    this.dirty.add(cell);
  }

  /** A change that is not journaled (`Decision.soft`) is saved with the actor's next snapshot (at rest only: `softUntilRest`). */
  changedSoftly(cell: ActorCell): void {
    if (this.behavior.softUntilRest) return;
    this.dirty.add(cell);
  }

  /**
   * Issues the append of one entry and, in the same tick, applies it to the
   * actor's state (`apply`), so that the actor can decide its next message
   * while the append becomes durable. Waits only while a checkpoint is taken
   * (then it returns a promise; otherwise it issues at once): a checkpoint
   * therefore never sees state whose append was not issued. Gives the
   * promise of the entry's durable position, which also waits for the rows
   * `apply` returned to be written: a checkpoint must not pass an entry whose
   * rows are not in the store yet. Throws (or rejects) when not issued.
   */
  issue(cell: ActorCell, entry: JournalEntry, apply: () => StoreWrite[]): Issued | Promise<Issued> {
    return this.gate ? this.issueAfterGate(cell, entry, apply) : this.issueNow(cell, entry, apply);
  }

  private async issueAfterGate(cell: ActorCell, entry: JournalEntry, apply: () => StoreWrite[]): Promise<Issued> {
    while (this.gate) await this.gate;
    return this.issueNow(cell, entry, apply);
  }

  private issueNow(cell: ActorCell, entry: JournalEntry, apply: () => StoreWrite[]): Issued {
    if (this.broken) throw this.broken;
    if (this.deps.owned && !this.deps.owned()) throw new FencedError(this.fence, this.fence.epoch + 1);
    this.inflight++;
    const append = this.deps.journal.append(
      this.journalPartition,
      [{ key: cell.address.key, data: encodeEntry(entry) }],
      this.fence,
    );
    const rows = apply();
    this.dirty.add(cell);
    if (this.unsaved++ === 0) this.firstUnsavedAt = Date.now();
    const written = append.then(async ([position]) => {
      if (rows.length > 0) await this.deps.store.write(rows, { fence: this.fence, position });
      return position!;
    });
    const durable = written.then(
      (position) => {
        this.lastPosition = Math.max(this.lastPosition, position);
        cell.position = Math.max(cell.position, position);
        // Owed before the checkpoint can pass this record; sent now (later records of a broken partition never get here).
        this.owe(cell.address, position, entry, true);
        this.settle();
        return position;
      },
      (err: unknown) => {
        // Later entries of this partition were decided on state that is now
        // not durable: nothing more is accepted until the partition recovers.
        this.broken ??= err instanceof Error ? err : new Error(String(err));
        this.settle();
        this.deps.onBroken(this);
        throw err;
      },
    );
    return { durable };
  }

  private settle(): void {
    if (--this.inflight === 0) this.drained?.();
  }

  checkpointDue(now: number): boolean {
    return checkpointDue(this.unsaved, this.dirty.size, now - this.firstUnsavedAt, this.deps.checkpoint);
  }

  /** Saves every changed actor and advances the checkpoint. */
  async checkpoint(): Promise<void> {
    if (this.unsaved === 0 && this.dirty.size === 0) return;
    while (this.gate) await this.gate;
    let open!: () => void;
    this.gate = new Promise((resolve) => (open = resolve));
    try {
      if (this.inflight > 0) await new Promise<void>((resolve) => (this.drained = resolve));
      this.drained = undefined;
      const position = this.lastPosition;
      if (this.broken || (this.deps.owned && !this.deps.owned())) return;
      // Every applied entry is durable now, and none is newer than `position`.
      for (const cell of this.dirty) this.noteResidence(cell.address.key, cell.state);
      const writes: StoreWrite[] = [...this.dirty].map((cell) => ({
        ...snapshotKey(cell.address),
        op: 'put' as const,
        value: encodeSnapshot(cell.snapshot(position)),
      }));
      writes.push(this.checkpointWrite(position));
      await this.deps.store.write(writes, { sync: true, fence: this.fence, position });
      this.deps.onCheckpoint(writes.length - 1);
      this.dirty.clear();
      this.unsaved = 0;
      await this.deps.journal.release(this.journalPartition, position);
    } catch (err) {
      this.deps.log.error({ err, partition: this.id }, 'checkpoint failed; will retry');
    } finally {
      this.gate = undefined;
      open();
    }
  }

  /** Saves a passivated actor's state so it no longer needs the journal. */
  async saveAndForget(cell: ActorCell): Promise<void> {
    this.comeToRest(cell);
    if (!this.dirty.has(cell) || this.broken) return;
    const snapshot = encodeSnapshot(cell.snapshot(cell.position));
    await this.deps.store.write([{ ...snapshotKey(cell.address), op: 'put', value: snapshot }], {
      fence: this.fence,
      position: cell.position,
    });
    this.dirty.delete(cell);
    // Only an actor that allows it is passivated; the next checkpoint records that.
    this.resident.delete(cell.address.key);
  }

  private noteResidence(key: string, state: object): void {
    const stays = this.behavior.canPassivate ? !this.behavior.canPassivate(state) : false;
    if (stays) this.resident.add(key);
    else this.resident.delete(key);
  }

  private checkpointWrite(position: number): StoreWrite {
    const checkpoint: Checkpoint = { position, resident: [...this.resident], outbox: this.outbox.entries() };
    const value = encode(checkpoint);
    return { ...checkpointKey(this.behavior.type, this.fence.shard), op: 'put', value };
  }

  /**
   * Replays the journal past the partition's checkpoint into snapshots and
   * rows, then checkpoints. After a crash this is where acknowledged changes
   * that had not reached the store are put back.
   */
  async recover(): Promise<void> {
    const { store, journal, idempotencyCapacity } = this.deps;
    const behavior = this.behavior;
    const saved = await store.get(checkpointKey(behavior.type, this.fence.shard));
    const checkpoint = saved ? decode<Checkpoint>(saved) : undefined;
    const from = checkpoint?.position ?? -1;
    this.resident.clear();
    for (const key of checkpoint?.resident ?? []) this.resident.add(key);
    // What was owed at the checkpoint, and what every later record owes: sent again by `flushOutbox`.
    this.outbox.close();
    this.outbox = this.newOutbox();
    for (const [key, item] of checkpoint?.outbox ?? []) this.outbox.add(key, item, false);
    const byKey = new Map<string, Array<{ position: number; entry: JournalEntry }>>();
    let last = from;
    for await (const record of journal.read(this.journalPartition, from)) {
      const entry = decodeEntry(record.data, behavior);
      this.owe({ type: behavior.type, key: record.key }, record.position, entry, false);
      let list = byKey.get(record.key);
      if (!list) byKey.set(record.key, (list = []));
      list.push({ position: record.position, entry });
      last = record.position;
    }
    this.lastPosition = from;
    this.dirty.clear();
    this.unsaved = 0;
    this.broken = undefined;
    if (byKey.size === 0) return;
    const writes: StoreWrite[] = [];
    for (const [key, records] of byKey) {
      const address = { type: behavior.type, key };
      const bytes = await store.get(snapshotKey(address));
      const snapshot = bytes ? decodeSnapshot(bytes) : undefined;
      const state = snapshot ? snapshot.state : behavior.initial(key);
      const idem = IdempotencyCache.from(snapshot?.idem ?? [], behavior.idempotencyCapacity ?? idempotencyCapacity);
      let position = snapshot?.position ?? -1;
      for (const { position: at, entry } of records) {
        if (at <= position) continue;
        writes.push(...applyEntry(behavior, state, entry, address));
        if (entry.idem !== undefined) idem.set(entry.idem, entry.reply);
        position = at;
      }
      this.noteResidence(key, state);
      const snap = encodeSnapshot({ rv: 1, position, state, idem: idem.toJSON() });
      writes.push({ ...snapshotKey(address), op: 'put', value: snap });
    }
    writes.push(this.checkpointWrite(last));
    await store.write(writes, { sync: true, fence: this.fence, position: last });
    await journal.release(this.journalPartition, last);
    this.lastPosition = last;
  }
}
