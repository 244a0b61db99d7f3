import kafkajs, { type Kafka, type Message, type Producer, type RetryOptions } from 'kafkajs';
import { FencedError, type Fence, type JournalAppend, type Logger } from '@chat/runtime';
import type { FenceBook } from './kafka-fences.js';
import { isFencingError, isRetriable } from './kafka-support.js';

const { Partitioners } = kafkajs;

/** Tries of one transaction (see `commit`). */
const ATTEMPTS = 3;
const RETRY_AFTER_MS = 100;

export interface ShardWriterOptions {
  kafka: Kafka;
  transactionalId: string;
  fence: Fence;
  book: FenceBook;
  transactionTimeoutMs: number;
  retry: RetryOptions;
  /** A transaction takes queued appends up to about this many bytes. */
  maxBatchBytes: number;
  /** Resolves once the topic exists; awaited inside the pump, so call order holds. */
  ready(topic: string): Promise<void>;
  /** Whether the record at `offset` of the shard's partition of `topic` is committed (read back). */
  committed(topic: string, offset: number): Promise<boolean>;
  log: Logger;
}

export interface WriterStats {
  transactions: number;
  appends: number;
  records: number;
}

/** What one try of a transaction got to: the offsets its send returned, once its commit is asked for. */
interface Tried {
  sent?: Map<string, number>;
}

/** One `append` call waiting for its transaction. */
interface Pending {
  topic: string;
  records: JournalAppend[];
  bytes: number;
  resolve(positions: number[]): void;
  reject(err: unknown): void;
}

/**
 * Writes one shard's journal partitions (one per actor type) through one
 * transactional producer, whose id is the shard's: whoever initializes that
 * id last is the only one whose transactions the broker still accepts.
 *
 * Group commit: appends queue up while a transaction is in flight, and the
 * next transaction sends them all and commits once. An append resolves with
 * its offsets only after the commit (acks = all), and a failed transaction
 * fails every append queued behind it, so no partition keeps a record whose
 * predecessor was lost.
 */
export class ShardWriter {
  private producer: Producer | undefined;
  private fenced: FencedError | undefined;
  private readonly queue: Pending[] = [];
  private pumping: Promise<void> | undefined;
  private connecting: Promise<void> | undefined;
  private closed = false;
  /** Per topic, the highest offset this writer acknowledged. */
  private readonly acked = new Map<string, number>();

  constructor(
    private readonly o: ShardWriterOptions,
    private readonly stats: WriterStats,
  ) {}

  get epoch(): number {
    return this.o.fence.epoch;
  }

  /** Fences older owners: records our epoch, then takes the transactional id over (see connect). */
  async takeOver(): Promise<void> {
    await this.o.book.record(this.o.fence);
    await this.connect();
  }

  /**
   * The offset a read of `topic` must reach to see every record this writer
   * acknowledged. A commit returns before the broker writes its markers, and
   * until it has, the last stable offset, where reads of committed records
   * stop, lags behind.
   */
  readEnd(topic: string): number {
    return (this.acked.get(topic) ?? -1) + 1;
  }

  /**
   * After a failed transaction, its outcome is unknown until the shard's
   * transactional id is initialized again (which completes or aborts it);
   * a read must wait for that, or it might leave out a record that turns
   * out committed.
   */
  async settle(): Promise<void> {
    if (!this.producer && !this.fenced) await this.reconnect();
  }

  append(topic: string, records: JournalAppend[]): Promise<number[]> {
    if (this.fenced) return Promise.reject(this.fenced);
    if (this.closed) return Promise.reject(new Error('the Kafka journal is closed'));
    const bytes = records.reduce((sum, r) => sum + r.data.byteLength + r.key.length + 64, 0);
    return new Promise((resolve, reject) => {
      this.queue.push({ topic, records, bytes, resolve, reject });
      this.pumping ??= this.pump();
    });
  }

  /** Lets queued appends finish, then lets the producer go. */
  async close(): Promise<void> {
    this.closed = true;
    await this.pumping;
    await this.drop();
  }

  private async pump(): Promise<void> {
    try {
      while (this.queue.length > 0) await this.commit(this.take());
    } finally {
      // Same tick as the empty check: a later append starts a new pump.
      this.pumping = undefined;
    }
  }

  private take(): Pending[] {
    const batch = [this.queue.shift()!];
    let bytes = batch[0]!.bytes;
    while (this.queue.length > 0 && bytes + this.queue[0]!.bytes <= this.o.maxBatchBytes) {
      bytes += this.queue[0]!.bytes;
      batch.push(this.queue.shift()!);
    }
    return batch;
  }

  /**
   * Sends a batch in one transaction. A failure that a retry may fix (one
   * kafkajs marks retriable, a request timeout, the coordinator busy or
   * moving, or our producer taken over with no newer epoch in the book) is
   * tried again, up to ATTEMPTS times, with a new producer: initializing it
   * aborts the failed transaction, or completes it if its commit had been
   * taken, and its `connect` checks the fence book as a takeover does. When
   * the commit itself failed, the transaction may have committed: the
   * first record it sent is read back, and if it is there the appends
   * succeed as they are, rather than being sent twice.
   */
  private async commit(batch: Pending[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const tried: Tried = {};
      try {
        await this.attempt(batch, tried);
        return;
      } catch (err) {
        if (attempt >= ATTEMPTS || !mayRetry(err)) return this.fail(batch, err);
        this.o.log.warn(
          { err, shard: this.o.fence.shard, appends: batch.length, attempt, commitAsked: tried.sent !== undefined },
          'journal transaction failed; trying again with a new producer',
        );
        await this.drop();
        await new Promise((resolve) => setTimeout(resolve, RETRY_AFTER_MS * attempt));
        if (!tried.sent) continue;
        try {
          if (await this.committedAfterAll(tried.sent)) return this.resolveBatch(batch, tried.sent);
        } catch (checkErr) {
          return this.fail(batch, checkErr);
        }
      }
    }
  }

  /** One transaction: sends the batch, commits, resolves its appends. `tried.sent` once the commit is asked for. */
  private async attempt(batch: Pending[], tried: Tried): Promise<void> {
    if (this.fenced) throw this.fenced;
    for (const topic of new Set(batch.map((p) => p.topic))) await this.o.ready(topic);
    if (!this.producer) await this.reconnect();
    const txn = await this.producer!.transaction();
    const sent = await txn.sendBatch({ acks: -1, topicMessages: this.messagesOf(batch) });
    tried.sent = new Map(sent.map((m) => [m.topicName, Number(m.baseOffset)]));
    await txn.commit();
    this.resolveBatch(batch, tried.sent);
  }

  /** After a failed commit: a new producer settles the transaction (`connect`), then its first record is looked for. */
  private async committedAfterAll(sent: Map<string, number>): Promise<boolean> {
    await this.reconnect();
    const [topic, offset] = [...sent][0]!;
    return this.o.committed(topic, offset);
  }

  /** The batch is committed, its first record of each topic at `sent`'s offset: each append gets its positions. */
  private resolveBatch(batch: Pending[], sent: Map<string, number>): void {
    const next = new Map(sent);
    for (const p of batch) {
      const base = next.get(p.topic);
      if (base === undefined) throw new Error(`no offset for ${p.topic} in the produce response`);
      next.set(p.topic, base + p.records.length);
      this.acked.set(p.topic, base + p.records.length - 1);
      p.resolve(p.records.map((_, i) => base + i));
    }
    this.stats.transactions++;
    this.stats.appends += batch.length;
    this.stats.records += batch.reduce((n, p) => n + p.records.length, 0);
  }

  /** One message list per topic, in call order: Kafka numbers them in that order. */
  private messagesOf(batch: Pending[]): { topic: string; messages: Message[] }[] {
    const byTopic = new Map<string, Message[]>();
    for (const p of batch) {
      let messages = byTopic.get(p.topic);
      if (!messages) byTopic.set(p.topic, (messages = []));
      for (const r of p.records) {
        const value = Buffer.from(r.data.buffer, r.data.byteOffset, r.data.byteLength);
        messages.push({ key: r.key, value, partition: this.o.fence.shard });
      }
    }
    return [...byTopic].map(([topic, messages]) => ({ topic, messages }));
  }

  /**
   * A failed transaction fails its appends and every append queued behind
   * it. Its producer is never reused: kafkajs cannot end a transaction whose
   * commit failed, and a retry with its old sequence numbers could be taken
   * for a duplicate of an aborted batch. The next append makes a new one.
   */
  private async fail(batch: Pending[], err: unknown): Promise<void> {
    await this.drop();
    let reason = err;
    if (isFencingError(err) && !(err instanceof FencedError)) {
      // A newer owner, or our transaction ran past its timeout: the book says which.
      reason = await this.checkNewest().then(
        () => err,
        (checked: unknown) => (checked instanceof FencedError ? checked : err),
      );
    }
    this.o.log.warn({ err: reason, shard: this.o.fence.shard, appends: batch.length }, 'journal transaction failed');
    for (const p of [...batch, ...this.queue.splice(0)]) p.reject(reason);
  }

  /**
   * Makes a producer and initializes the shard's transactional id, which
   * bumps its epoch: the broker aborts the previous holder's open
   * transaction and refuses its later sends and commits. The check before
   * makes sure no newer owner is recorded, so a stale owner does not fence
   * the current one; the check after catches an owner that recorded
   * meanwhile (owners record before they initialize).
   */
  private async connect(): Promise<void> {
    await this.checkNewest();
    const producer = this.o.kafka.producer({
      transactionalId: this.o.transactionalId,
      transactionTimeout: this.o.transactionTimeoutMs,
      maxInFlightRequests: 1,
      // Transactions are idempotent regardless; `idempotent: true` would only
      // add a second producer id at connect and demand endless retries, so
      // an append would hang through an outage instead of failing.
      idempotent: false,
      retry: this.o.retry,
      allowAutoTopicCreation: false,
      createPartitioner: Partitioners.DefaultPartitioner,
    });
    try {
      await producer.connect();
      // The first transaction runs InitProducerId; sending nothing, its commit stays local.
      await (await producer.transaction()).commit();
      await this.checkNewest();
    } catch (err) {
      await producer.disconnect().catch(() => {});
      throw err;
    }
    this.producer = producer;
  }

  private reconnect(): Promise<void> {
    this.connecting ??= this.connect().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  private async checkNewest(): Promise<void> {
    const newest = await this.o.book.newest(this.o.fence.shard);
    if (newest > this.epoch) {
      this.fenced ??= new FencedError(this.o.fence, newest);
      throw this.fenced;
    }
  }

  private async drop(): Promise<void> {
    const producer = this.producer;
    this.producer = undefined;
    await producer?.disconnect().catch((err: unknown) => this.o.log.warn({ err }, 'producer disconnect'));
  }
}

/** A failure a new producer may get past: not a newer owner (its `connect` would find that one anyway). */
const mayRetry = (err: unknown) => !(err instanceof FencedError) && (isRetriable(err) || isFencingError(err));
