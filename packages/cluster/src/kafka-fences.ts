import type { Admin, Kafka, Producer } from 'kafkajs';
import type { Fence, Logger } from '@chat/runtime';
import { readPartition } from './kafka-reader.js';

export interface FenceBookOptions {
  kafka: Kafka;
  admin: Admin;
  /** `<ns>.journal._fences`, one partition per shard. */
  topic: string;
  producer: Producer;
  groupId(): string;
  stallMs: number;
  log: Logger;
}

/**
 * The epochs that took each shard, as records in a topic of their own.
 *
 * Taking a shard's transactional id over (InitProducerId) fences whoever held
 * it, but kafkajs speaks only InitProducerId v0/v1, which cannot say "only if
 * I still hold epoch e" (KIP-360). So a producer that must be made anew
 * after a failure, or that finds itself fenced, cannot tell from Kafka
 * whether a newer owner took the shard, or its own transaction merely
 * timed out. This book answers with the runtime's epochs: an owner records
 * its epoch *before* it takes the id over and looks for a newer one *after*
 * (see ShardWriter), so of two owners racing, the older always sees the
 * newer's record, and only the newest epoch keeps writing.
 */
export class FenceBook {
  /** Per shard: the highest epoch read so far and the offset read up to. */
  private readonly seen = new Map<number, { epoch: number; upTo: number }>();

  constructor(private readonly o: FenceBookOptions) {}

  /** Appends `fence` to its shard's record; durable (acks = all) once resolved. */
  async record(fence: Fence): Promise<void> {
    await this.o.producer.send({
      topic: this.o.topic,
      acks: -1,
      messages: [{ key: String(fence.shard), value: JSON.stringify({ epoch: fence.epoch }), partition: fence.shard }],
    });
  }

  /** The newest epoch ever recorded for `shard` (0 if none). Reads only what it has not read before. */
  async newest(shard: number): Promise<number> {
    const seen = this.seen.get(shard) ?? { epoch: 0, upTo: -1 };
    const read = readPartition({ ...this.o, partition: shard, after: seen.upTo, groupId: this.o.groupId() });
    let { epoch, upTo } = seen;
    for await (const record of read) {
      const value = parseEpoch(record.data);
      if (value === undefined) this.o.log.warn({ shard, position: record.position }, 'unreadable fence record');
      else epoch = Math.max(epoch, value);
      upTo = record.position;
    }
    const now = this.seen.get(shard);
    if (!now || now.upTo < upTo) this.seen.set(shard, { epoch, upTo });
    return Math.max(epoch, now?.epoch ?? 0);
  }
}

function parseEpoch(data: Uint8Array): number | undefined {
  try {
    const value = JSON.parse(new TextDecoder().decode(data)) as { epoch?: unknown };
    return typeof value.epoch === 'number' ? value.epoch : undefined;
  } catch {
    return undefined;
  }
}
