import { ChatError, ENVELOPE_VERSION, formatAddress } from '@chat/protocol';
import type { ActorAddress, AskEnvelope, ReplyEnvelope } from '@chat/protocol';
import type { AnyBehavior } from './behavior.js';
import { ActorCell, type CellHost, type Issued } from './cell.js';
import { notOwnerError, type ActorClient } from './client.js';
import { silentLogger, type Logger } from './logger.js';
import {
  checkingValues,
  FencedError,
  fromWire,
  toWire,
  type Fence,
  type Journal,
  type StateStore,
  type StoreWrite,
  type Subscription,
  type Transport,
} from './ports/index.js';
import { sendOwed, type Outgoing } from './outbox.js';
import { Partition } from './partition.js';
import { Turns } from './turns.js';
import { snapshotKey, decodeSnapshot, type JournalEntry, type Snapshot } from './records.js';
import { hostSubject, shardOf, shardSubject } from './shards.js';

export interface HostOptions {
  transport: Transport;
  journal: Journal;
  store: StateStore;
  /** Used by actors to reach other actors. */
  actors: ActorClient;
  behaviors: AnyBehavior[];
  shardCount: number;
  /**
   * The shards `start` takes, with `epoch`; all of them by default (embedded).
   * A cluster host starts with none (`[]`) and its shard manager calls
   * `addShard` and `removeShard` as leases come and go.
   */
  shards?: number[];
  /** Names the host's fan-out subject (`host.<id>.fanout`); clients that know the shard map send there. */
  hostId?: string;
  /** Ownership epoch of the shards taken by `start`; must grow with every new owner of a shard. */
  epoch?: number;
  mailboxCapacity?: number;
  /** Idle actors are dropped from memory after this long. */
  passivateAfterMs?: number;
  /** A partition is checkpointed after this many records at the least (`CheckpointPolicy.every`)... */
  checkpointEvery?: number;
  /** ...or this many per actor changed since, if more (`CheckpointPolicy.perActor`)... */
  checkpointPerActor?: number;
  /** ...but at most this many records (`CheckpointPolicy.maxRecords`)... */
  checkpointMaxRecords?: number;
  /** ...or this long after its first unsaved record. */
  checkpointAfterMs?: number;
  idempotencyCapacity?: number;
  /** How long one attempt to deliver an owed message waits for its receivers' confirmation (`Outbox`). */
  outboxTimeoutMs?: number;
  log?: Logger;
}

export interface HostStats {
  live: number;
  activations: number;
  passivations: number;
  checkpoints: number;
  /** Actor snapshots written by checkpoints (a passivated actor's own snapshot is not counted). */
  snapshots: number;
  refusedFull: number;
  /** Messages refused because this host's lease of their shard ran out (it is fenced; the shard moves). */
  refusedFenced: number;
}

/** How long a host whose lease ran out waits before saying it does not own an actor (see `deliver`). */
export const LATE_NOT_OWNER_MS = 1_000;

/**
 * Hosts the actors of the shards it owns: routes each message from the
 * transport to its actor's mailbox, brings actors to life from the store and
 * journal, records their changes, checkpoints them and passivates idle ones.
 */
export class ActorHost implements CellHost {
  readonly store: StateStore;
  readonly actors: ActorClient;
  readonly log: Logger;
  readonly idempotencyCapacity: number;
  readonly outboxTimeoutMs: number;
  readonly stats: HostStats = {
    live: 0,
    activations: 0,
    passivations: 0,
    checkpoints: 0,
    snapshots: 0,
    refusedFull: 0,
    refusedFenced: 0,
  };
  private readonly behaviors = new Map<string, AnyBehavior>();
  private readonly partitions = new Map<string, Partition>();
  /** The same partitions by actor type and shard: a message's found without building its id. */
  private readonly partitionsByType = new Map<string, Map<number, Partition>>();
  /** The live cells by actor type and key: a message's found without building its address string. */
  private readonly cells = new Map<string, Map<string, ActorCell>>();
  private readonly subscriptions: Subscription[] = [];
  private sweeper: NodeJS.Timeout | undefined;
  private readonly recovering = new Map<string, Promise<void>>();
  /** Snapshots of passivated actors still being written, by address. */
  private readonly saving = new Map<string, Promise<void>>();
  private sweeping = false;
  /** Fan-outs, and what came behind one on its subject, waiting for their turn. */
  private readonly turns = new Turns();
  /**
   * Per owned shard: its transport subscriptions, whether this host may still act for it, and whether it is
   * being handed off (`removeShard`), when it takes no more messages.
   */
  private readonly owned = new Map<number, { subscriptions: Subscription[]; valid: () => boolean; leaving?: true }>();
  private readonly options: Required<Omit<HostOptions, 'shards' | 'log' | 'hostId' | 'epoch'>> &
    Pick<HostOptions, 'hostId'> & { shards: number[]; epoch: number };

  constructor(options: HostOptions) {
    this.options = {
      mailboxCapacity: 1000,
      passivateAfterMs: 5 * 60_000,
      checkpointEvery: 1000,
      checkpointPerActor: 8,
      checkpointMaxRecords: 50_000,
      checkpointAfterMs: 10_000,
      idempotencyCapacity: 256,
      outboxTimeoutMs: 10_000,
      epoch: 1,
      ...options,
      shards: options.shards ?? Array.from({ length: options.shardCount }, (_, i) => i),
    };
    this.store = options.store;
    this.actors = options.actors;
    this.log = options.log ?? silentLogger;
    this.idempotencyCapacity = this.options.idempotencyCapacity;
    this.outboxTimeoutMs = this.options.outboxTimeoutMs;
    for (const behavior of options.behaviors) this.behaviors.set(behavior.type, behavior);
  }

  /** Takes the configured shards (see `addShard`), then serves fan-outs and sweeps. */
  async start(): Promise<void> {
    for (const shard of this.options.shards) await this.addShard(shard, this.options.epoch, undefined, false);
    if (this.options.hostId !== undefined) {
      const subject = hostSubject(this.options.hostId);
      this.subscriptions.push(
        this.options.transport.subscribe(subject, (msg) => this.deliver(msg.subject, msg.data, msg.respond, true)),
      );
    }
    // Only now is every receiver of what recovery found owed served, fan-outs to this host included.
    for (const partition of this.partitions.values()) partition.flushOutbox();
    // At least every 5 s, whatever the time bounds: the sweep is also where the checkpoint's record counts are looked at.
    const sweepEvery = Math.max(
      10,
      Math.min(this.options.passivateAfterMs, this.options.checkpointAfterMs, 10_000) / 2,
    );
    // A failing sweep is logged, never an unhandled rejection that ends the process.
    this.sweeper = setInterval(() => {
      this.sweep().catch((err: unknown) => this.log.error({ err }, 'sweep failed'));
    }, sweepEvery);
    this.sweeper.unref();
  }

  /**
   * Takes a shard as owner of `epoch`: fences older owners in the store and
   * the journal, recovers what the journal holds past the last checkpoint,
   * then serves the shard's subjects. `valid` says whether this host may
   * still act for the shard (its lease has not run out); it is asked before
   * every message is taken and every record is written. What the shard's
   * actors owed others when its last owner stopped is sent again, unless
   * `flush` is false (the caller flushes once more shards are served).
   */
  async addShard(shard: number, epoch: number, valid: () => boolean = () => true, flush = true): Promise<void> {
    const { journal, store, transport } = this.options;
    if (this.owned.has(shard)) throw new Error(`shard ${shard} is already owned by this host`);
    const fence: Fence = { shard, epoch };
    const current = await store.claim(fence);
    if (current !== epoch) throw new FencedError(fence, current);
    await journal.fence?.(fence);
    const subscriptions: Subscription[] = [];
    this.owned.set(shard, { subscriptions, valid });
    try {
      for (const behavior of this.behaviors.values()) {
        const partition = new Partition(behavior, fence, {
          journal,
          store,
          log: this.log,
          actors: this.actors,
          outboxTimeoutMs: this.outboxTimeoutMs,
          idempotencyCapacity: this.idempotencyCapacity,
          checkpoint: {
            every: this.options.checkpointEvery,
            perActor: this.options.checkpointPerActor,
            maxRecords: this.options.checkpointMaxRecords,
            afterMs: this.options.checkpointAfterMs,
          },
          owned: valid,
          onCheckpoint: (snapshots) => {
            this.stats.checkpoints++;
            this.stats.snapshots += snapshots;
          },
          onBroken: (broken) => void this.recover(broken),
        });
        await partition.recover();
        this.partitions.set(partition.id, partition);
        let byShard = this.partitionsByType.get(behavior.type);
        if (!byShard) this.partitionsByType.set(behavior.type, (byShard = new Map()));
        byShard.set(shard, partition);
        for (const key of partition.resident) this.cellFor({ type: behavior.type, key }, shard);
        subscriptions.push(
          transport.subscribe(shardSubject(behavior.type, shard), (msg) =>
            this.deliver(msg.subject, msg.data, msg.respond),
          ),
        );
      }
      if (flush)
        for (const behavior of this.behaviors.values()) this.partitions.get(`${behavior.type}.${shard}`)?.flushOutbox();
    } catch (err) {
      await this.removeShard(shard, true);
      throw err;
    }
  }

  /**
   * Gives a shard up. A hand-off (`lost` false) stops taking its messages,
   * lets its actors finish, checkpoints it so the next owner replays little,
   * then forgets it. A lost lease drops everything at once: another owner
   * may already be writing, so nothing more is saved.
   */
  async removeShard(shard: number, lost = false): Promise<void> {
    const owned = this.owned.get(shard);
    if (!owned) return;
    // Fan-outs to this host still come: an actor made for one now would outlive the partition dropped below.
    owned.leaving = true;
    for (const sub of owned.subscriptions.splice(0)) sub.unsubscribe();
    const cellsOf = () => [...this.liveCells()].filter((cell) => cell.shard === shard);
    if (!lost) await Promise.all(cellsOf().map((cell) => cell.whenIdle()));
    // Dropped meanwhile (its lease was lost): nothing is left to save. Only the cells here now are stopped:
    // one passivated or recovered meanwhile is already gone, and counted.
    if (this.owned.get(shard) !== owned) return;
    for (const cell of cellsOf()) {
      // Stopped first (no timer fires after): what is at rest is the state the checkpoint below saves.
      cell.stop();
      if (!lost) this.partitionOf(cell).comeToRest(cell);
      this.forget(cell.address);
    }
    for (const behavior of this.behaviors.values()) {
      const id = `${behavior.type}.${shard}`;
      const partition = this.partitions.get(id);
      if (!lost) await partition?.checkpoint();
      if (this.owned.get(shard) !== owned) return;
      partition?.close();
      this.partitions.delete(id);
      this.partitionsByType.get(behavior.type)?.delete(shard);
    }
    this.owned.delete(shard);
  }

  /** Forgets a live cell. */
  private forget(address: ActorAddress): void {
    if (this.cells.get(address.type)?.delete(address.key)) this.stats.live--;
  }

  /** Every live cell. */
  private *liveCells(): IterableIterator<ActorCell> {
    for (const ofType of this.cells.values()) yield* ofType.values();
  }

  /** Messages this host's actors owe others and the receivers have not confirmed yet. */
  get owed(): number {
    let owed = 0;
    for (const partition of this.partitions.values()) owed += partition.owed;
    return owed;
  }

  /** The shards this host serves now. */
  get shards(): number[] {
    return [...this.owned.keys()];
  }

  /** Stops taking messages, lets mailboxes drain, checkpoints, stops timers. */
  async stop(): Promise<void> {
    for (const sub of this.subscriptions.splice(0)) sub.unsubscribe();
    for (const { subscriptions } of this.owned.values()) for (const sub of subscriptions) sub.unsubscribe();
    clearInterval(this.sweeper);
    await this.whenIdle();
    // Stopped first, so that no timer changes a state once it is at rest and before its snapshot.
    for (const cell of this.liveCells()) cell.stop();
    for (const cell of this.liveCells()) this.partitionOf(cell).comeToRest(cell);
    for (const partition of this.partitions.values()) await partition.checkpoint();
    for (const partition of this.partitions.values()) partition.close();
    this.cells.clear();
    this.owned.clear();
    this.stats.live = 0;
  }

  /** Resolves once nothing waits in the line and every live actor has an empty mailbox and is not working. */
  async whenIdle(): Promise<void> {
    await this.turns.whenEmpty();
    await Promise.all([...this.liveCells()].map((cell) => cell.whenIdle()));
  }

  /** Passivates idle actors and checkpoints partitions that are due. */
  async sweep(now = Date.now()): Promise<void> {
    if (this.sweeping) return;
    this.sweeping = true;
    try {
      await this.sweepOnce(now);
    } finally {
      this.sweeping = false;
    }
  }

  private async sweepOnce(now: number): Promise<void> {
    for (const cell of this.liveCells()) {
      const behavior = cell.behavior;
      if (cell.activationFailed) {
        if (!cell.idle) continue;
        // No state to save or to ask canPassivate about; a later message tries activating again.
        cell.stop();
        this.forget(cell.address);
        continue;
      }
      // The time first: it is a field, and most actors were active lately.
      if (now - cell.lastActive < this.options.passivateAfterMs || !cell.idle) continue;
      if (behavior.canPassivate && !behavior.canPassivate(cell.state)) continue;
      await this.passivate(cell);
    }
    for (const partition of this.partitions.values()) {
      if (partition.checkpointDue(now)) await partition.checkpoint();
    }
  }

  /**
   * After a failed append, the partition's actors may hold state that is not
   * durable: drop them and rebuild the partition from the journal. Messages
   * that arrive meanwhile wait for the recovery in their actor's activation.
   */
  private async recover(partition: Partition): Promise<void> {
    if (this.recovering.has(partition.id)) return;
    this.log.warn({ partition: partition.id, err: partition.broken }, 'append failed; recovering the partition');
    let done!: () => void;
    this.recovering.set(partition.id, new Promise((resolve) => (done = resolve)));
    try {
      for (const cell of this.liveCells()) {
        if (this.partitionOf(cell) !== partition) continue;
        cell.stop();
        this.forget(cell.address);
      }
      for (let attempt = 1; ; attempt++) {
        try {
          await partition.recover();
          partition.flushOutbox();
          return;
        } catch (err) {
          this.log.error({ err, partition: partition.id, attempt }, 'partition recovery failed; retrying');
          await new Promise((resolve) => setTimeout(resolve, Math.min(5000, 100 * attempt)));
        }
      }
    } finally {
      this.recovering.delete(partition.id);
      done();
    }
  }

  /**
   * Drops an actor from memory after saving its state. A message that comes
   * meanwhile starts a new cell, whose activation waits for the save.
   */
  private async passivate(cell: ActorCell): Promise<void> {
    const id = formatAddress(cell.address);
    cell.stop();
    this.forget(cell.address);
    this.stats.passivations++;
    const saving = this.partitionOf(cell).saveAndForget(cell);
    this.saving.set(id, saving);
    try {
      await saving;
    } finally {
      this.saving.delete(id);
    }
  }

  /** `viaHost`: it came to this host's fan-out subject, from a sender that believed this host owns the keys. */
  private deliver(subject: string, data: Uint8Array, respond?: (data: Uint8Array) => void, viaHost = false): void {
    const reply = respond
      ? (r: ReplyEnvelope) => respond(toWire(this.options.transport, r, `reply to ${subject}`))
      : undefined;
    let envelope: AskEnvelope;
    try {
      envelope = fromWire<AskEnvelope>(data);
      if (envelope.v !== ENVELOPE_VERSION) throw new Error(`envelope version ${envelope.v}`);
    } catch (err) {
      this.log.warn({ err }, 'undecodable message dropped');
      reply?.(errorReply(new ChatError('BAD_REQUEST', 'Undecodable message')));
      return;
    }
    if (envelope.kind === 'fanout') this.deliverFanout(subject, envelope, reply, viaHost);
    // Behind what waits in the line from its subject: order per subject is kept (`Turns`).
    else if (this.turns.waits(subject)) this.turns.add(subject, 1, () => this.deliverOne(envelope, reply, viaHost));
    else this.deliverOne(envelope, reply, viaHost);
  }

  private deliverOne(envelope: AskEnvelope, reply: ((r: ReplyEnvelope) => void) | undefined, viaHost: boolean): void {
    const shard = shardOf(envelope.to, this.options.shardCount);
    const cell = this.serves(envelope.to, shard) ? this.cellFor(envelope.to, shard) : undefined;
    if (!cell) {
      if (!reply) return;
      const notOwner = () => reply(errorReply(notOwnerError()));
      // A host whose lease ran out still hears the shard's subject until it drops the shard, and the next owner
      // may hear it already: an ask reaches both. Answering "not owner" at once would win the race and make the
      // asker send again what the next owner applies, so it is answered late, after the next owner's answer.
      if (!viaHost && this.owned.has(shard)) {
        setTimeout(notOwner, LATE_NOT_OWNER_MS).unref();
      } else notOwner();
      return;
    }
    if (!cell.offer({ kind: 'message', envelope, ...(reply ? { respond: reply } : {}) })) {
      this.stats.refusedFull++;
      reply?.(errorReply(mailboxFull(envelope.to)));
    }
  }

  /**
   * Hands a fan-out to each local actor it names, a slice a turn (`Turns`).
   * A fan-out that wants an answer (`fanoutAsk`) gets, once every actor has
   * answered, the keys that must be sent again: not served here, refused, or
   * answered "try again". A plain one from a sender whose shard map was stale
   * (a shard moved) is passed on to the owners of the keys it names. Every
   * actor gets the envelope as it came (its `to` names no actor): a cell
   * reads its deadline, key and body only.
   */
  private deliverFanout(
    subject: string,
    envelope: AskEnvelope,
    reply: ((r: ReplyEnvelope) => void) | undefined,
    viaHost: boolean,
  ): void {
    const keys = envelope.keys ?? [];
    const type = envelope.to.type;
    const failed: string[] = [];
    const elsewhere = new Map<number, string[]>();
    let waiting = 0;
    let handed = false;
    const answered = () => {
      if (handed && waiting === 0) reply!({ v: ENVELOPE_VERSION, ok: true, body: { failed } });
    };
    const answerOf = (key: string) => (r: ReplyEnvelope) => {
      if (!r.ok && ChatError.fromWire(r.error).retriable) failed.push(key);
      waiting--;
      answered();
    };
    const handOver = (from: number, to: number) => {
      for (let i = from; i < to; i++) {
        const key = keys[i]!;
        const address = { type, key };
        const shard = shardOf(address, this.options.shardCount);
        if (!this.serves(address, shard)) {
          if (reply) failed.push(key);
          else if (viaHost) elsewhere.set(shard, [...(elsewhere.get(shard) ?? []), key]);
          else this.log.warn({ actor: formatAddress(address) }, 'fan-out for a shard this host does not serve dropped');
          continue;
        }
        const cell = this.cellFor(address, shard);
        const respond = reply ? answerOf(key) : undefined;
        if (respond) waiting++;
        if (cell?.offer(respond ? { kind: 'message', envelope, respond } : { kind: 'message', envelope })) continue;
        if (cell) this.stats.refusedFull++;
        this.log.warn({ actor: formatAddress(address) }, 'fan-out delivery dropped');
        respond?.(errorReply(mailboxFull(address)));
      }
    };
    const done = () => {
      for (const [shard, keys] of elsewhere) {
        const subject = shardSubject(type, shard);
        this.options.transport.publish(subject, toWire(this.options.transport, { ...envelope, keys }, subject));
      }
      handed = true;
      if (reply) answered();
    };
    this.turns.add(subject, keys.length, handOver, done);
  }

  /** Whether this host owns the actor's shard, may still act for it, and is not handing it off. */
  private serves(address: ActorAddress, shard: number): boolean {
    const owned = this.owned.get(shard);
    if (!owned || owned.leaving) return false;
    if (owned.valid()) return true;
    this.stats.refusedFenced++;
    this.log.warn({ shard, actor: formatAddress(address) }, 'message refused: the lease of its shard ran out');
    return false;
  }

  /** The live cell of `address` (in `shard`), made if it has none. */
  private cellFor(address: ActorAddress, shard: number): ActorCell | undefined {
    let ofType = this.cells.get(address.type);
    let cell = ofType?.get(address.key);
    if (cell) return cell;
    const behavior = this.behaviors.get(address.type);
    if (!behavior || !this.partitionsByType.get(address.type)?.has(shard)) return undefined;
    cell = new ActorCell(address, behavior, shard, this, this.options.mailboxCapacity);
    if (!ofType) this.cells.set(address.type, (ofType = new Map()));
    ofType.set(address.key, cell);
    this.stats.live++;
    this.stats.activations++;
    return cell;
  }

  // --- CellHost ---

  get carriesValues(): boolean {
    return this.options.transport.carriesValues === true;
  }

  /**
   * What a relay passes on (a user's events on their way to a queue) goes
   * straight into the mailbox of a receiver this host serves, when the
   * transport is in this process (embedded): the same envelope, key and
   * deadline as an ask, without the transport's request, the client's
   * retries and the wire's wrapping of ask and reply, which were a third of
   * a delivery's cost in the actors' process. Order per subject is kept: a
   * receiver whose subject has something waiting in the host's line
   * (`Turns`) gets it through the transport, behind it. In a cluster, and for
   * fan-outs, the client sends it (`sendOwed`).
   */
  relayOwed(key: string, item: Outgoing): Promise<string[]> {
    const { transport, shardCount } = this.options;
    if (!('to' in item) || transport.carriesValues !== true) return this.sendOwed(key, item);
    const shard = shardOf(item.to, shardCount);
    if (!this.serves(item.to, shard) || this.turns.waits(shardSubject(item.to.type, shard))) {
      return this.sendOwed(key, item);
    }
    const cell = this.cellFor(item.to, shard);
    if (!cell) return this.sendOwed(key, item);
    const envelope: AskEnvelope = {
      v: ENVELOPE_VERSION,
      kind: 'ask',
      to: item.to,
      body: item.body,
      deadline: Date.now() + this.outboxTimeoutMs,
      idempotencyKey: key,
    };
    // As it would cross the transport: frozen and checked in the test runs.
    if (checkingValues()) toWire(transport, envelope, `relay to ${formatAddress(item.to)}`);
    return new Promise((resolve) => {
      const respond = (reply: ReplyEnvelope) => {
        if (reply.ok) return resolve([]);
        const err = ChatError.fromWire(reply.error);
        if (!err.retriable) this.log.warn({ err, key, body: item.body.type }, 'a receiver refused an owed message');
        resolve(err.retriable ? [''] : []);
      };
      // In a later microtask, as the transport delivers: never inside the sender's decision.
      queueMicrotask(() => {
        if (cell.offer({ kind: 'message', envelope, respond })) return;
        this.stats.refusedFull++;
        resolve(['']);
      });
    });
  }

  private sendOwed(key: string, item: Outgoing): Promise<string[]> {
    return sendOwed(this.actors, this.log, key, item, this.outboxTimeoutMs);
  }

  changedSoftly(cell: ActorCell): void {
    this.partitionOf(cell).changedSoftly(cell);
  }

  issue(cell: ActorCell, entry: JournalEntry, apply: () => StoreWrite[]): Issued | Promise<Issued> {
    return this.partitionOf(cell).issue(cell, entry, apply);
  }

  async loadSnapshot(address: ActorAddress): Promise<Snapshot | undefined> {
    await this.recovering.get(this.partitionId(address));
    await this.saving.get(formatAddress(address))?.catch(() => undefined);
    const bytes = await this.store.get(snapshotKey(address));
    return bytes && decodeSnapshot(bytes);
  }

  private partitionId(address: ActorAddress): string {
    return `${address.type}.${shardOf(address, this.options.shardCount)}`;
  }

  private partitionOf(cell: ActorCell): Partition {
    return this.partitionsByType.get(cell.address.type)!.get(cell.shard)!;
  }
}

/**
 * A full mailbox: the asker is told to come back later (`retry-after`, in
 * seconds, which the edge turns into a Retry-After header), not to ask again
 * at once into the same full mailbox.
 */
const mailboxFull = (to: ActorAddress) =>
  new ChatError('OVERLOADED', `Too many requests queued for ${formatAddress(to)}`, { 'retry-after': 1 });

const errorReply = (err: ChatError): ReplyEnvelope => ({ v: ENVELOPE_VERSION, ok: false, error: err.toWire() });
