import type cassandra from 'cassandra-driver';
import { FencedError, type Fence } from '@chat/runtime';

interface Seen {
  epoch: number | undefined;
  /** When the epoch was last read from (or written to) the table; 0 = never. */
  checkedAt: number;
}

/**
 * Shard epochs in the `epochs` table, and this process's view of them.
 *
 * `claim` raises the stored epoch with lightweight transactions, so it only
 * ever grows, whatever the interleaving of claims from many processes.
 *
 * The fence check of a write is best-effort on purpose: paying a Paxos round
 * or even a read per write would double the cost of every write. Instead the
 * process remembers, per shard, the newest epoch it has seen (its own claims,
 * and a plain read at most every `refreshMs`) and refuses writes older than
 * that. A stale owner in another process can therefore still get writes
 * through for up to `refreshMs` after a newer owner claimed the shard. Those
 * late writes are harmless because every runtime write carries its journal
 * position as the Cassandra write timestamp: the new owner recovers from the
 * journal and writes at positions at least as high, so an old owner's late
 * write of a lower position never overwrites it.
 */
export class EpochTable {
  private readonly seen = new Map<number, Seen>();
  private readonly refreshing = new Map<number, Promise<void>>();
  /** Fenced writes in flight per shard, which a `claim` waits out (as the embedded store does). */
  private readonly inflight = new Map<number, Set<Promise<unknown>>>();

  constructor(
    private readonly client: cassandra.Client,
    private readonly refreshMs: number,
  ) {}

  /** Throws `FencedError` when this process knows of a newer epoch for the shard. */
  async check(fence: Fence): Promise<void> {
    const seen = this.seen.get(fence.shard);
    if (!seen || Date.now() - seen.checkedAt >= this.refreshMs) await this.refresh(fence.shard);
    const current = this.seen.get(fence.shard)?.epoch;
    if (current !== undefined && current > fence.epoch) throw new FencedError(fence, current);
  }

  /** Remembers a fenced write until it settles, so that a later `claim` can wait for it. */
  track(shard: number, write: Promise<unknown>): void {
    let set = this.inflight.get(shard);
    if (!set) this.inflight.set(shard, (set = new Set()));
    set.add(write);
    const forget = () => {
      set.delete(write);
      if (set.size === 0 && this.inflight.get(shard) === set) this.inflight.delete(shard);
    };
    write.then(forget, forget);
  }

  async claim(fence: Fence): Promise<number> {
    // Refuse this process's older writes at once; raising early only fences more.
    this.note(fence.shard, fence.epoch, 0);
    const inForce = await this.raise(fence);
    this.note(fence.shard, inForce, Date.now());
    // Writes accepted here under the older epoch may still be landing; the new
    // owner reads the store once this resolves, so they must be done first.
    await Promise.allSettled([...(this.inflight.get(fence.shard) ?? [])]);
    return inForce;
  }

  /** Compare-and-set loop: raise to `fence.epoch` unless the stored epoch is at least as high. */
  private async raise({ shard, epoch }: Fence): Promise<number> {
    const value = BigInt(epoch);
    for (let attempt = 0; attempt < 50; attempt++) {
      const update = await this.client.execute('UPDATE epochs SET epoch = ? WHERE shard = ? IF epoch < ?', [
        value,
        shard,
        value,
      ]);
      const row = update.first()!;
      if (row['[applied]'] === true) return epoch;
      // Not applied and a stored epoch came back: it is at least as high as ours.
      if (row['epoch'] !== undefined && row['epoch'] !== null) return Number(row['epoch']);
      const insert = await this.client.execute('INSERT INTO epochs (shard, epoch) VALUES (?, ?) IF NOT EXISTS', [
        shard,
        value,
      ]);
      if (insert.first()!['[applied]'] === true) return epoch;
      // Another claim created the row in between: compare with it on the next round.
    }
    throw new Error(`shard ${shard}: could not claim epoch ${epoch} (too much contention)`);
  }

  private refresh(shard: number): Promise<void> {
    let pending = this.refreshing.get(shard);
    if (!pending) {
      const startedAt = Date.now();
      pending = this.client
        .execute('SELECT epoch FROM epochs WHERE shard = ?', [shard])
        .then((rs) => {
          const stored = rs.first()?.['epoch'];
          this.note(shard, stored === undefined || stored === null ? undefined : Number(stored), startedAt);
        })
        .finally(() => this.refreshing.delete(shard));
      this.refreshing.set(shard, pending);
    }
    return pending;
  }

  private note(shard: number, epoch: number | undefined, checkedAt: number): void {
    const seen = this.seen.get(shard);
    const newest = seen?.epoch === undefined ? epoch : epoch === undefined ? seen.epoch : Math.max(seen.epoch, epoch);
    this.seen.set(shard, { epoch: newest, checkedAt: Math.max(seen?.checkedAt ?? 0, checkedAt) });
  }
}
