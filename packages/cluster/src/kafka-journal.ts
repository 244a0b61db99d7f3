import { randomBytes } from 'node:crypto';
import kafkajs, { type Admin, type Kafka, type Producer, type RetryOptions } from 'kafkajs';
import {
  FencedError,
  silentLogger,
  type Fence,
  type Journal,
  type JournalAppend,
  type JournalPartition,
  type JournalRecord,
  type Logger,
} from '@chat/runtime';
import { FenceBook } from './kafka-fences.js';
import { readPartition } from './kafka-reader.js';
import { ShardWriter, type WriterStats } from './kafka-shard-writer.js';
import { checkNamespace, journalTopic, kafkaLogCreator, retrying } from './kafka-support.js';
import { JournalTopics } from './kafka-topics.js';

const { Kafka: KafkaClient, Partitioners, logLevel } = kafkajs;

export interface KafkaJournalOptions {
  brokers: string[];
  /** Everything lives under it: topics `<ns>.journal.<type>`, transactional ids `<ns>.shard.<n>`. */
  namespace: string;
  /** Partitions per topic: one per shard. */
  shardCount: number;
  clientId?: string;
  log?: Logger;
  /** Default 1 (one broker here); use 3 in production. */
  replicationFactor?: number;
  /** Default 1; use 2 with three replicas, so acks = all means two copies. */
  minInsyncReplicas?: number;
  /** How long the broker lets a transaction stay open. Default 30 s. */
  transactionTimeoutMs?: number;
  /** Bytes of queued appends one transaction takes. Default 900 kB, under the broker's 1 MB batch limit. */
  maxBatchBytes?: number;
  /** A read with no progress for this long fails. Default 30 s. */
  readStallMs?: number;
  /** kafkajs retries; bounded, so that an append fails during an outage instead of hanging. */
  retry?: RetryOptions;
}

/**
 * The cluster journal on Kafka: a partition (actor type, shard) is partition
 * `shard` of topic `<ns>.journal.<type>`, a position is a Kafka offset. Each
 * shard this process owns is written by a ShardWriter (one transactional
 * producer, group commit); a read runs a short-lived consumer (readPartition).
 *
 * `append` on a shard that `fence` did not take first throws rather than
 * fencing implicitly: taking the shard's transactional id over would fence
 * its rightful owner.
 */
export class KafkaJournal implements Journal {
  readonly stats: WriterStats = { transactions: 0, appends: 0, records: 0 };
  private readonly writers = new Map<number, ShardWriter>();
  private readonly topics: JournalTopics;
  private readonly releasing = new Set<string>();
  private readonly book: FenceBook;
  private readonly readerId = randomBytes(4).toString('hex');
  private reads = 0;
  private closed = false;

  private constructor(
    private readonly o: Required<Omit<KafkaJournalOptions, 'clientId' | 'log'>>,
    private readonly kafka: Kafka,
    private readonly admin: Admin,
    private readonly fenceProducer: Producer,
    private readonly log: Logger,
  ) {
    this.topics = new JournalTopics(admin, o);
    this.book = new FenceBook({
      kafka,
      admin,
      topic: `${o.namespace}.journal._fences`,
      producer: fenceProducer,
      groupId: () => this.groupId(),
      stallMs: o.readStallMs,
      log,
    });
  }

  static async open(options: KafkaJournalOptions): Promise<KafkaJournal> {
    checkNamespace(options.namespace);
    if (!Number.isInteger(options.shardCount) || options.shardCount < 1) throw new Error('shardCount must be >= 1');
    const o = {
      replicationFactor: 1,
      minInsyncReplicas: 1,
      transactionTimeoutMs: 30_000,
      maxBatchBytes: 900_000,
      readStallMs: 30_000,
      retry: { initialRetryTime: 5, maxRetryTime: 2_000, retries: 10 },
      ...options,
    };
    const log = (options.log ?? silentLogger).child({ component: 'kafka-journal' });
    const kafka = new KafkaClient({
      brokers: o.brokers,
      clientId: options.clientId ?? `journal-${o.namespace}`,
      logLevel: logLevel.WARN,
      logCreator: kafkaLogCreator(log),
      retry: o.retry,
    });
    const admin = kafka.admin();
    const fenceProducer = kafka.producer({
      retry: o.retry,
      allowAutoTopicCreation: false,
      createPartitioner: Partitioners.DefaultPartitioner,
    });
    const journal = new KafkaJournal(o, kafka, admin, fenceProducer, log);
    try {
      await admin.connect();
      await fenceProducer.connect();
      await journal.topics.ensure(`${o.namespace}.journal._fences`);
    } catch (err) {
      await journal.close().catch(() => {});
      throw err;
    }
    return journal;
  }

  async fence(fence: Fence): Promise<void> {
    if (this.closed) throw new Error('the Kafka journal is closed');
    this.checkShard(fence.shard);
    const current = this.writers.get(fence.shard);
    if (current && current.epoch > fence.epoch) throw new FencedError(fence, current.epoch);
    if (current && current.epoch === fence.epoch) return;
    const writer = new ShardWriter(
      {
        kafka: this.kafka,
        transactionalId: `${this.o.namespace}.shard.${fence.shard}`,
        fence,
        book: this.book,
        transactionTimeoutMs: this.o.transactionTimeoutMs,
        retry: this.o.retry,
        maxBatchBytes: this.o.maxBatchBytes,
        ready: (topic) => this.topics.ensure(topic),
        committed: (topic, offset) => this.committed(topic, fence.shard, offset),
        log: this.log.child({ shard: fence.shard, epoch: fence.epoch }),
      },
      this.stats,
    );
    await writer.takeOver();
    const now = this.writers.get(fence.shard);
    if (now && now.epoch > fence.epoch) {
      await writer.close();
      throw new FencedError(fence, now.epoch);
    }
    this.writers.set(fence.shard, writer);
    // Its producer is fenced already; closing lets its queued appends fail.
    await now?.close();
  }

  append(partition: JournalPartition, records: JournalAppend[], fence: Fence): Promise<number[]> {
    if (this.closed) return Promise.reject(new Error('the Kafka journal is closed'));
    const writer = this.writers.get(partition.shard);
    if (partition.shard !== fence.shard) {
      return Promise.reject(new Error(`fence of shard ${fence.shard} used for shard ${partition.shard}`));
    }
    if (!writer || writer.epoch < fence.epoch) {
      return Promise.reject(new Error(`shard ${fence.shard} epoch ${fence.epoch} is not fenced here; call fence()`));
    }
    if (writer.epoch > fence.epoch) return Promise.reject(new FencedError(fence, writer.epoch));
    if (records.length === 0) return Promise.resolve([]);
    try {
      return writer.append(journalTopic(this.o.namespace, partition.topic), records);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  async *read(partition: JournalPartition, after: number): AsyncIterable<JournalRecord> {
    this.checkShard(partition.shard);
    const topic = journalTopic(this.o.namespace, partition.topic);
    await this.topics.ensure(topic);
    const writer = this.writers.get(partition.shard);
    await writer?.settle().catch((err: unknown) => {
      if (!(err instanceof FencedError)) throw err;
    });
    yield* readPartition({
      kafka: this.kafka,
      admin: this.admin,
      topic,
      partition: partition.shard,
      after,
      minEnd: writer?.readEnd(topic) ?? 0,
      groupId: this.groupId(),
      stallMs: this.o.readStallMs,
      log: this.log,
    });
  }

  /**
   * Deletes the records up to `upTo` (Kafka DeleteRecords), since topics keep
   * records forever otherwise: a record past the last checkpoint must never
   * expire. Best effort: a failure only leaves more to skip.
   */
  async release(partition: JournalPartition, upTo: number): Promise<void> {
    const topic = journalTopic(this.o.namespace, partition.topic);
    const id = `${topic}/${partition.shard}`;
    if (upTo < 0 || this.releasing.has(id)) return;
    this.releasing.add(id);
    try {
      await this.topics.ensure(topic);
      const partitions = [{ partition: partition.shard, offset: String(upTo + 1) }];
      await retrying(() => this.admin.deleteTopicRecords({ topic, partitions }));
    } catch (err) {
      this.log.warn({ err, topic, shard: partition.shard, upTo }, 'releasing journal records failed');
    } finally {
      this.releasing.delete(id);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const writers = [...this.writers.values()];
    this.writers.clear();
    await Promise.all(writers.map((w) => w.close()));
    await this.fenceProducer.disconnect().catch(() => {});
    await this.admin.disconnect();
  }

  /** Deletes this namespace's topics and read groups (for tests). */
  async deleteNamespace(): Promise<void> {
    await this.topics.deleteAll(`${this.o.namespace}.`);
  }

  /** Whether the record at `offset` is committed: a read from there finds it (aborted records are never read). */
  private async committed(topic: string, shard: number, offset: number): Promise<boolean> {
    const read = readPartition({
      kafka: this.kafka,
      admin: this.admin,
      topic,
      partition: shard,
      after: offset - 1,
      minEnd: offset + 1,
      groupId: this.groupId(),
      stallMs: this.o.readStallMs,
      log: this.log,
    });
    for await (const record of read) return record.position === offset;
    return false;
  }

  private checkShard(shard: number): void {
    if (!Number.isInteger(shard) || shard < 0 || shard >= this.o.shardCount) {
      throw new Error(`shard ${shard} is outside 0..${this.o.shardCount - 1}`);
    }
  }

  private groupId(): string {
    return `${this.o.namespace}.read.${this.readerId}.${++this.reads}`;
  }
}
