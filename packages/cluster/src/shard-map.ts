import { decode, encode } from '@chat/protocol';
import type { Subscription, Transport } from '@chat/runtime';
import type { HeldShard } from './shard-manager.js';

/** Where actor hosts say which shards they serve, after every shard round. */
export const SHARD_MAP_SUBJECT = 'shards.announce';

export interface Announcement {
  host: string;
  /** When the host said it (wall-clock ms): it acts for no other shard from then on. */
  at: number;
  shards: HeldShard[];
}

/**
 * Who owns which shard, as the hosts announce it. Edges and hosts use it to
 * send a fan-out once per owning host (DESIGN.md 3.7). It is only a hint:
 * an entry older than `ttlMs` is forgotten (its keys go to their shards'
 * subjects), and a host passes on keys of shards it no longer serves.
 */
export class ShardMap {
  private readonly owners = new Map<number, { host: string; at: number }>();
  private readonly subscription: Subscription;

  constructor(
    transport: Transport,
    private readonly ttlMs: number,
  ) {
    this.subscription = transport.subscribe(SHARD_MAP_SUBJECT, (msg) => {
      const { host, shards } = decode<Announcement>(msg.data);
      const at = Date.now();
      for (const [shard, owner] of this.owners) if (owner.host === host) this.owners.delete(shard);
      for (const { shard } of shards) this.owners.set(shard, { host, at });
    });
  }

  ownerOf(shard: number): string | undefined {
    const owner = this.owners.get(shard);
    return owner && Date.now() - owner.at < this.ttlMs ? owner.host : undefined;
  }

  close(): void {
    this.subscription.unsubscribe();
  }
}

export function announceShards(transport: Transport, host: string, shards: HeldShard[]): void {
  transport.publish(SHARD_MAP_SUBJECT, encode({ host, at: Date.now(), shards } satisfies Announcement));
}
