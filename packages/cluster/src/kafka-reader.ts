import kafkajs, { type Admin, type Kafka, type PartitionAssigner } from 'kafkajs';
import type { JournalRecord, Logger } from '@chat/runtime';
import { asError, retrying } from './kafka-support.js';

const { AssignerProtocol } = kafkajs;

export interface ReadOptions {
  kafka: Kafka;
  admin: Admin;
  topic: string;
  partition: number;
  /** Records with an offset above this are read. */
  after: number;
  /** Read at least up to here, even if the last stable offset is not there yet. */
  minEnd?: number;
  /** A group id nobody else uses: the read's own consumer group. */
  groupId: string;
  /** A read that makes no progress for this long fails instead of hanging. */
  stallMs: number;
  log: Logger;
}

/**
 * Reads one partition from `after + 1` to its end as of the call, then ends.
 *
 * kafkajs has no manual assignment, so the read runs a consumer in a group of
 * its own whose assigner hands it only this partition, and seeks it when the
 * group is joined (before the first fetch). The consumer reads committed
 * records only, so aborted or fenced transactions never show.
 *
 * "The end" is the last stable offset listed at the start (admin offsets are
 * listed read_committed), or `minEnd` if that is further: the owner's own
 * last commit may not have its markers written yet. The last offsets of a
 * partition are commit markers that no consumer is ever handed, so progress
 * is the offset of the last record *fetched*, control records included:
 * kafkajs reports it in its end-of-batch event even for a batch whose
 * records were all filtered out.
 */
export async function* readPartition(o: ReadOptions): AsyncGenerator<JournalRecord> {
  const offsets = await retrying(() => o.admin.fetchTopicOffsets(o.topic));
  const here = offsets.find((p) => p.partition === o.partition);
  if (!here) throw new Error(`topic ${o.topic} has no partition ${o.partition}`);
  const end = Math.max(Number(here.high), o.minEnd ?? 0);
  let next = Math.max(o.after + 1, Number(here.low));
  if (next >= end) return;

  const handoff = new Handoff<JournalRecord[]>();
  const consumer = o.kafka.consumer({
    groupId: o.groupId,
    partitionAssigners: [onlyPartition(o.topic, o.partition)],
    allowAutoTopicCreation: false,
    // Short fetch waits keep leaving the group quick once the end is reached.
    maxWaitTimeInMs: 50,
    retry: { retries: 5, restartOnFailure: async () => false },
  });
  let stalled: NodeJS.Timeout | undefined;
  const watch = () => {
    clearTimeout(stalled);
    stalled = setTimeout(() => {
      handoff.fail(new Error(`reading ${o.topic}/${o.partition} made no progress at offset ${next} (end ${end})`));
    }, o.stallMs);
  };
  const progress = (first: string | null, last: string) => {
    // A batch that starts past `next` would leave a gap: not ours to count.
    if (first === null || Number(first) > next) return;
    next = Math.max(next, Number(last) + 1);
    watch();
    if (next >= end) handoff.end();
  };
  consumer.on(consumer.events.GROUP_JOIN, () => {
    consumer.seek({ topic: o.topic, partition: o.partition, offset: String(next) });
  });
  consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) => {
    if (payload.topic === o.topic && payload.partition === o.partition)
      progress(payload.firstOffset, payload.lastOffset);
  });
  consumer.on(consumer.events.CRASH, ({ payload }) => handoff.fail(asError(payload.error)));

  try {
    watch();
    await consumer.connect();
    await consumer.subscribe({ topic: o.topic, fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatch: async ({ batch }) => {
        if (batch.topic !== o.topic || batch.partition !== o.partition) return;
        const records: JournalRecord[] = [];
        for (const m of batch.messages) {
          const position = Number(m.offset);
          if (position < next || position >= end) continue;
          records.push({ position, key: m.key?.toString('utf8') ?? '', data: new Uint8Array(m.value ?? []) });
        }
        if (records.length > 0) await handoff.put(records);
      },
    });
    for (;;) {
      const records = await handoff.take();
      if (!records) return;
      // The caller's own pace is not a stall.
      clearTimeout(stalled);
      yield* records;
      watch();
    }
  } finally {
    clearTimeout(stalled);
    handoff.close();
    await consumer.disconnect().catch((err: unknown) => o.log.warn({ err, topic: o.topic }, 'read consumer close'));
  }
}

/** An assigner that gives the group's first member the one partition to read. */
function onlyPartition(topic: string, partition: number): PartitionAssigner {
  const name = 'JournalPartition';
  const userData = Buffer.alloc(0);
  return () => ({
    name,
    version: 1,
    async assign({ members }) {
      return members.map(({ memberId }, i) => ({
        memberId,
        memberAssignment: AssignerProtocol.MemberAssignment.encode({
          version: 1,
          assignment: i === 0 ? { [topic]: [partition] } : {},
          userData,
        }),
      }));
    },
    protocol: ({ topics }) => ({
      name,
      metadata: AssignerProtocol.MemberMetadata.encode({ version: 1, topics, userData }),
    }),
  });
}

/**
 * Hands batches from the consumer's callback to the reading generator one at
 * a time, so a slow reader holds the consumer back instead of buffering the
 * whole partition.
 */
class Handoff<T> {
  private readonly items: { item: T; taken: () => void }[] = [];
  private ended = false;
  private failure: Error | undefined;
  private wake: (() => void) | undefined;

  put(item: T): Promise<void> {
    if (this.ended || this.failure) return Promise.resolve();
    return new Promise((taken) => {
      this.items.push({ item, taken });
      this.notify();
    });
  }

  /** The next item; undefined once ended (after the items put before). */
  async take(): Promise<T | undefined> {
    for (;;) {
      if (this.failure) throw this.failure;
      const first = this.items.shift();
      if (first) {
        first.taken();
        return first.item;
      }
      if (this.ended) return undefined;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  end(): void {
    this.ended = true;
    this.notify();
  }

  fail(err: Error): void {
    this.failure ??= err;
    this.close();
  }

  /** Nobody reads any more: lets every waiting `put` return, so the consumer can stop. */
  close(): void {
    this.ended = true;
    for (const { taken } of this.items.splice(0)) taken();
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
