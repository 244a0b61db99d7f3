import type { Admin } from 'kafkajs';
import { kafkaErrorsIn } from './kafka-support.js';

export interface JournalTopicsOptions {
  shardCount: number;
  replicationFactor: number;
  minInsyncReplicas: number;
}

/** Creates the journal's topics on first use and deletes a namespace's topics and groups. */
export class JournalTopics {
  private readonly ready = new Map<string, Promise<void>>();

  constructor(
    private readonly admin: Admin,
    private readonly o: JournalTopicsOptions,
  ) {}

  /** Creates the topic unless it exists (two processes may race: both succeed). */
  ensure(topic: string): Promise<void> {
    let ready = this.ready.get(topic);
    if (!ready) {
      ready = this.create(topic);
      this.ready.set(topic, ready);
      ready.catch(() => this.ready.delete(topic));
    }
    return ready;
  }

  /** Deletes every topic and consumer group named `<prefix>...`. */
  async deleteAll(prefix: string): Promise<void> {
    const topics = (await this.admin.listTopics()).filter((t) => t.startsWith(prefix));
    if (topics.length > 0) await this.admin.deleteTopics({ topics });
    const { groups } = await this.admin.listGroups();
    const groupIds = groups.map((g) => g.groupId).filter((g) => g.startsWith(prefix));
    if (groupIds.length > 0) await this.admin.deleteGroups(groupIds).catch(() => {});
    this.ready.clear();
  }

  private async create(topic: string): Promise<void> {
    // Not `waitForLeaders`: under KRaft the metadata may not know a new topic
    // yet, and kafkajs gives up on that answer; waitForLeaders below retries it.
    await this.admin.createTopics({
      waitForLeaders: false,
      topics: [
        {
          topic,
          numPartitions: this.o.shardCount,
          replicationFactor: this.o.replicationFactor,
          configEntries: [
            { name: 'min.insync.replicas', value: String(this.o.minInsyncReplicas) },
            // Records past the last checkpoint must never expire; `release` deletes the rest.
            { name: 'retention.ms', value: '-1' },
          ],
        },
      ],
    });
    const partitions = await this.waitForLeaders(topic);
    if (partitions < this.o.shardCount) {
      throw new Error(`topic ${topic} has ${partitions} partitions, fewer than the ${this.o.shardCount} shards`);
    }
  }

  /** Polls the topic's metadata until every partition has a leader; answers the partition count. */
  private async waitForLeaders(topic: string, timeoutMs = 30_000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        const { topics } = await this.admin.fetchTopicMetadata({ topics: [topic] });
        const partitions = topics[0]?.partitions ?? [];
        if (partitions.length > 0 && partitions.every((p) => p.leader >= 0)) return partitions.length;
      } catch (err) {
        const { types } = kafkaErrorsIn(err);
        if (!types.includes('UNKNOWN_TOPIC_OR_PARTITION') && !types.includes('LEADER_NOT_AVAILABLE')) throw err;
      }
      if (Date.now() > deadline) throw new Error(`topic ${topic} has no leaders after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
