import { fnv1a, silentLogger, type ActorHost, type Logger } from '@chat/runtime';
import { LeaseKeeper, monotonicNs } from './lease-keeper.js';
import type { Lease, LeaseTable } from './leases.js';

export interface ShardManagerOptions {
  table: LeaseTable;
  host: ActorHost;
  hostId: string;
  shardCount: number;
  leaseMs: number;
  /** Where the lease table is: the leases are renewed over a session of their own. */
  cassandra: { contactPoints: string[]; localDataCenter: string; keyspace: string };
  /** At most this many shards are given up per round, so a join moves load gradually (free ones are all taken). */
  movesPerRound?: number;
  /** Called every round (a fifth of the lease) with the shards this host holds (for the shard map). */
  onRound?: (held: HeldShard[]) => void;
  log?: Logger;
}

interface Held {
  epoch: number;
  /** Wall-clock time this host took the shard. */
  since: number;
}

/** A shard as its holder sees it: held as `epoch` since `since`, valid until `until` (wall-clock ms). */
export interface HeldShard {
  shard: number;
  epoch: number;
  since: number;
  until: number;
}

/**
 * Keeps this host's share of the shards. Every round (a fifth of the lease)
 * it reads who is alive, and computes each shard's rightful owner by
 * rendezvous hashing over the live hosts: it hands off the shards that
 * belong elsewhere, a few per round, and takes all the free ones that
 * belong to it, several side by side. A `LeaseKeeper` renews the leases
 * on a thread of its own. A host acts for a shard only until its lease,
 * as measured on its own monotonic clock from the start of the last
 * successful renewal, minus a margin: so after a pause (SIGSTOP) it stops
 * before another host may take over.
 */
export class ShardManager {
  private readonly held = new Map<number, Held>();
  private timer: NodeJS.Timeout | undefined;
  private round: Promise<void> | undefined;
  private keeper: LeaseKeeper | undefined;
  private stopped = false;
  private readonly log: Logger;
  /** How long a lease lets this host act, from the start of its taking or renewal (the lease minus a fifth). */
  private readonly validNs: bigint;

  constructor(private readonly options: ShardManagerOptions) {
    this.log = options.log ?? silentLogger;
    this.validNs = BigInt(options.leaseMs - Math.floor(options.leaseMs / 5)) * 1_000_000n;
  }

  get interval(): number {
    return Math.max(100, Math.floor(this.options.leaseMs / 5));
  }

  /** Runs the first round, then every interval announces the shards held and starts a round unless one is running. */
  async start(): Promise<void> {
    const { cassandra, hostId, leaseMs, shardCount } = this.options;
    this.keeper = new LeaseKeeper({
      cassandra,
      hostId,
      leaseMs,
      shardCount,
      log: this.log,
      onLost: (shard) => void this.drop(shard),
    });
    await this.keeper.ready;
    await this.runRound();
    this.timer = setInterval(() => {
      this.options.onRound?.(this.heldShards());
      void this.runRound();
    }, this.interval);
  }

  /** Stops the rounds and hands every shard off (a clean leave), or just stops (`handOff` false). */
  async stop(handOff = true): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.round;
    if (handOff) {
      for (const shard of [...this.held.keys()]) await this.giveUp(shard);
      await this.options.table.leave(this.options.hostId).catch(() => undefined);
    }
    await this.keeper?.stop();
  }

  /** Whether this host may act for the shard now. */
  valid(shard: number): boolean {
    return this.held.has(shard) && monotonicNs() < (this.keeper?.validUntil(shard) ?? 0n);
  }

  get shards(): number[] {
    return [...this.held.keys()].sort((a, b) => a - b);
  }

  /** The shards this host may act for now, with their validity on the wall clock (for checkers and the shard map). */
  heldShards(): HeldShard[] {
    const now = Date.now();
    const nowNs = monotonicNs();
    return this.shards
      .filter((shard) => this.valid(shard))
      .map((shard) => {
        const { epoch, since } = this.held.get(shard)!;
        const until = now + Math.floor(Number(this.keeper!.validUntil(shard) - nowNs) / 1e6);
        return { shard, epoch, since, until };
      });
  }

  runRound(): Promise<void> {
    if (this.round || this.stopped) return this.round ?? Promise.resolve();
    this.round = this.roundOnce()
      .catch((err: unknown) => this.log.warn({ err }, 'shard round failed; next round retries'))
      .finally(() => (this.round = undefined));
    return this.round;
  }

  private async roundOnce(): Promise<void> {
    const { table, hostId, leaseMs } = this.options;
    await table.heartbeat(hostId, leaseMs);
    const [hosts, leases] = await Promise.all([table.liveHosts(), table.list()]);
    if (!hosts.includes(hostId)) hosts.push(hostId);
    const byShard = new Map(leases.map((lease) => [lease.shard, lease]));
    let moves = this.options.movesPerRound ?? 4;
    const free: number[] = [];
    for (let shard = 0; shard < this.options.shardCount; shard++) {
      if (this.stopped) return;
      const rightful = rendezvous(shard, hosts);
      if (this.held.has(shard)) {
        if (rightful === hostId || moves === 0) continue;
        await this.giveUp(shard);
        moves--;
      } else if (rightful === hostId && isFree(byShard.get(shard))) free.push(shard);
    }
    // A free shard is served by no one (its host died, or handed it off): all are taken now, a few at a time
    // side by side, not one after another (each take reads the shard's journal). The round ends only once
    // every take has (a stop waits for the round), then fails with the first that failed.
    for (let i = 0; i < free.length && !this.stopped; i += TAKES_AT_ONCE) {
      const takes = free.slice(i, i + TAKES_AT_ONCE).map((shard) => this.take(shard, byShard.get(shard)));
      for (const result of await Promise.allSettled(takes)) if (result.status === 'rejected') throw result.reason;
    }
    this.options.onRound?.(this.heldShards());
  }

  private async take(shard: number, seen: Lease | undefined): Promise<boolean> {
    const started = monotonicNs();
    const epoch = await this.options.table.acquire(shard, this.options.hostId, seen, this.options.leaseMs);
    if (epoch === undefined) return false;
    this.held.set(shard, { epoch, since: Date.now() });
    this.keeper!.hold(shard, epoch, started + this.validNs);
    try {
      await this.options.host.addShard(shard, epoch, () => this.valid(shard));
      const tookMs = Number((monotonicNs() - started) / 1_000_000n);
      this.log.info({ shard, epoch, tookMs }, 'shard taken');
      return true;
    } catch (err) {
      this.log.error({ err, shard, epoch }, 'could not take shard; releasing it');
      this.held.delete(shard);
      await this.keeper!.forget(shard);
      await this.options.table.release(shard, this.options.hostId, epoch).catch(() => undefined);
      return false;
    }
  }

  /** Hands a shard off: stops serving it, checkpoints it, then frees the lease for its rightful owner. */
  private async giveUp(shard: number): Promise<void> {
    const held = this.held.get(shard);
    if (!held) return;
    await this.options.host.removeShard(shard, !this.valid(shard));
    this.held.delete(shard);
    // Say so before the lease is free, so that no one sees two owners at once.
    this.options.onRound?.(this.heldShards());
    // No renewal may come after the release, or it would keep the lease from its next owner.
    await this.keeper!.forget(shard);
    await this.options.table.release(shard, this.options.hostId, held.epoch).catch((err: unknown) => {
      this.log.warn({ err, shard }, 'lease release failed; it will expire');
    });
    this.log.info({ shard, epoch: held.epoch }, 'shard handed off');
  }

  /** The lease is gone (another host took it, or it ran out): drop the shard without saving anything. */
  private async drop(shard: number): Promise<void> {
    if (!this.held.delete(shard)) return;
    await this.options.host.removeShard(shard, true);
    this.log.warn({ shard }, 'shard lease lost; shard dropped');
  }
}

/** Free shards taken side by side. */
const TAKES_AT_ONCE = 8;

const isFree = (lease: Lease | undefined) => !lease || lease.expiresAt < Date.now();

/** The host with the highest hash of (host, shard): stable, and moves only 1/n of the shards when a host comes or goes. */
export function rendezvous(shard: number, hosts: readonly string[]): string {
  let best = hosts[0]!;
  let bestScore = -1;
  for (const host of hosts) {
    const score = mix(fnv1a(`${host}#${shard}`));
    if (score > bestScore) [best, bestScore] = [host, score];
  }
  return best;
}

/** Murmur3's finalizer: FNV alone scores near-identical names too alike. */
function mix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
