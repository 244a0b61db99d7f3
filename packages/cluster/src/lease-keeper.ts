import { Worker } from 'node:worker_threads';
import type { Logger } from '@chat/runtime';

/** The process's monotonic clock in ns: one clock for every thread (each thread's `performance.now()` has its own origin). */
export const monotonicNs = (): bigint => process.hrtime.bigint();

export interface LeaseKeeperOptions {
  cassandra: { contactPoints: string[]; localDataCenter: string; keyspace: string };
  hostId: string;
  leaseMs: number;
  shardCount: number;
  log: Logger;
  /** A held lease is gone: another host took it, or it ran out before a renewal came back. */
  onLost(shard: number): void;
}

/** What the keeper's thread is given (`lease-worker.ts`). */
export interface KeeperData {
  until: SharedArrayBuffer;
  cassandra: LeaseKeeperOptions['cassandra'];
  hostId: string;
  leaseMs: number;
}
export type KeeperMessage = { hold: number; epoch: number } | { forget: number; ack: number };
export type KeeperReport =
  | { ready: boolean; error?: string }
  | { lost: number; epoch: number }
  | { forgotten: number; ack: number }
  | { failed: number; error: string }
  | { slow: number; tookMs: number; lapsedMs: number };

/**
 * Renews a host's shard leases on a thread of its own, so that the host's
 * event loop, however busy (a host under load), neither delays a renewal nor
 * its answer: the leases of a live host do not lapse. Per shard, the shared
 * memory holds the monotonic time until which the host may act for it.
 */
export class LeaseKeeper {
  private readonly until: BigInt64Array;
  private worker: Worker;
  private readonly acks = new Map<number, () => void>();
  private nextAck = 0;
  private stopping = false;
  /** Resolves once the keeper's session is connected (or could not be: renewals then connect it). */
  ready!: Promise<void>;

  constructor(private readonly options: LeaseKeeperOptions) {
    this.until = new BigInt64Array(new SharedArrayBuffer(8 * options.shardCount));
    this.worker = this.spawn();
  }

  private spawn(): Worker {
    const { cassandra, hostId, leaseMs, log } = this.options;
    const { contactPoints, localDataCenter, keyspace } = cassandra;
    const data: KeeperData = {
      until: this.until.buffer as SharedArrayBuffer,
      cassandra: { contactPoints, localDataCenter, keyspace },
      hostId,
      leaseMs,
    };
    const worker = new Worker(new URL('./lease-worker.js', import.meta.url), { workerData: data });
    worker.unref();
    let ready!: () => void;
    this.ready = new Promise((resolve) => (ready = resolve));
    worker.on('message', (report: KeeperReport) => {
      if ('ready' in report) {
        if (!report.ready) log.warn({ err: report.error }, 'lease keeper could not connect; its renewals will try');
        ready();
      } else if ('lost' in report) this.options.onLost(report.lost);
      else if ('forgotten' in report) this.acks.get(report.ack)?.();
      else if ('failed' in report) log.warn({ shard: report.failed, err: report.error }, 'lease renewal failed');
      else log.warn({ shard: report.slow, tookMs: report.tookMs, lapsedMs: report.lapsedMs }, 'lease renewal slow');
    });
    worker.on('error', (err) => log.error({ err }, 'lease keeper failed'));
    worker.on('exit', () => {
      if (this.stopping) return;
      // No one renews the leases now: they are lost. A new thread keeps those taken from now on.
      log.error({}, 'lease keeper stopped; its leases are dropped');
      ready();
      for (const ack of this.acks.values()) ack();
      for (let shard = 0; shard < this.until.length; shard++) {
        if (Atomics.load(this.until, shard) === 0n) continue;
        Atomics.store(this.until, shard, 0n);
        this.options.onLost(shard);
      }
      this.worker = this.spawn();
    });
    return worker;
  }

  /** Monotonic time (`monotonicNs`) until which the host may act for the shard; 0 when it holds no lease of it. */
  validUntil(shard: number): bigint {
    return Atomics.load(this.until, shard);
  }

  /** Keeps renewing a lease just taken as `epoch`, valid until `untilNs` (from the start of the taking). */
  hold(shard: number, epoch: number, untilNs: bigint): void {
    Atomics.store(this.until, shard, untilNs);
    this.worker.postMessage({ hold: shard, epoch } satisfies KeeperMessage);
  }

  /** Stops renewing a lease; resolves once no renewal of it is under way (so a release sent next comes last). */
  async forget(shard: number): Promise<void> {
    const ack = this.nextAck++;
    await new Promise<void>((resolve) => {
      this.acks.set(ack, resolve);
      this.worker.postMessage({ forget: shard, ack } satisfies KeeperMessage);
    });
    this.acks.delete(ack);
    Atomics.store(this.until, shard, 0n);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    for (const ack of this.acks.values()) ack();
    await this.worker.terminate();
  }
}
