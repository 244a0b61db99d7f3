import { connect, DiscardPolicy, Events, StorageType, type JetStreamManager, type NatsConnection } from 'nats';
import { silentLogger, type Logger } from '@chat/runtime';
import { RateLimitHealth } from './nats-rate-limit-health.js';
import { NatsRateLimitStore } from './nats-rate-limit-store.js';

export interface NatsRateLimitsOptions {
  /** One or more `nats://host:port` URLs (NATS_URL); the server must have JetStream on. */
  servers: string | string[];
  /** The cluster's namespace: its buckets are `<namespace>-ratelimit-<kind>`. */
  namespace: string;
  name?: string;
  log?: Logger;
  /** How long one get or put may take before the request is let through (default 2 s). */
  timeoutMs?: number;
}

export interface RateLimitKind {
  /** The longest window of this kind: the bucket keeps a key this long (plus a margin) after its last count. */
  windowMs: number;
  /** Keys the bucket holds at most; beyond, the oldest go, as in the edge's memory store. */
  maxKeys: number;
}

/** Added to a bucket's max age so that a server clock a little ahead of an edge's never ends a window early. */
const CLOCK_MARGIN_MS = 5_000;

/**
 * The cluster's shared rate limit counts: one NATS connection per edge and
 * one JetStream key-value bucket per kind of limit (user, ip, login). Kinds
 * get buckets of their own, as they get tables of their own in memory, so
 * that a flood of distinct addresses can only push out address counts,
 * never a username's failed logins, and each bucket's max age follows its
 * own window (30 minutes for logins, a minute for requests).
 */
export class NatsRateLimits {
  private readonly health: RateLimitHealth;

  private constructor(
    private readonly nc: NatsConnection,
    private readonly jsm: JetStreamManager,
    private readonly namespace: string,
    private readonly timeoutMs: number,
    private readonly log: Logger,
  ) {
    this.health = new RateLimitHealth(log);
    void this.watch();
  }

  static async connect(options: NatsRateLimitsOptions): Promise<NatsRateLimits> {
    const log = (options.log ?? silentLogger).child({ component: 'nats-rate-limits' });
    const timeoutMs = options.timeoutMs ?? 2000;
    const nc = await connect({
      servers: options.servers,
      ...(options.name === undefined ? {} : { name: options.name }),
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
      pingInterval: 5_000,
      maxPingOut: 2,
      // As the transport's: no stack captured per request (errors are read by code).
      noAsyncTraces: true,
    }).catch((err: Error) => {
      throw new Error(`cannot connect to NATS at ${String(options.servers)}: ${err.message}`);
    });
    try {
      return new NatsRateLimits(
        nc,
        await nc.jetstreamManager({ timeout: timeoutMs }),
        options.namespace,
        timeoutMs,
        log,
      );
    } catch (err) {
      await nc.close();
      throw new Error(`NATS at ${String(options.servers)} has no JetStream: ${(err as Error).message}`);
    }
  }

  /** Deletes every rate limit bucket of a namespace (when a test cluster is dropped). */
  static async dropNamespace(servers: string | string[], namespace: string): Promise<void> {
    const nc = await connect({ servers });
    try {
      const jsm = await nc.jetstreamManager();
      const prefix = `KV_${bucketName(namespace, '')}`;
      for await (const stream of jsm.streams.names()) {
        if (stream.startsWith(prefix)) await jsm.streams.delete(stream);
      }
    } finally {
      await nc.close();
    }
  }

  /** The store of one kind, its bucket created or brought up to `kind`'s window and bound. */
  async store(kind: string, limits: RateLimitKind): Promise<NatsRateLimitStore> {
    const bucket = bucketName(this.namespace, kind);
    const ttl = limits.windowMs + CLOCK_MARGIN_MS;
    const js = this.nc.jetstream({ timeout: this.timeoutMs });
    const open = () =>
      js.views.kv(bucket, { history: 1, ttl, storage: StorageType.File, maxValueSize: 256, timeout: this.timeoutMs });
    // Two edges starting together both find no bucket; the one that loses the creation just opens it.
    const kv = await open().catch(open);
    // The key-value view makes a bucket with no bound that refuses writes when full; the bound here
    // drops the oldest windows instead, and an existing bucket takes a longer window's max age.
    const stream = `KV_${bucket}`;
    const { config } = await this.jsm.streams.info(stream);
    const maxAge = ttl * 1_000_000; // JetStream counts in nanoseconds
    if (config.max_msgs !== limits.maxKeys || config.discard !== DiscardPolicy.Old || config.max_age < maxAge) {
      await this.jsm.streams.update(stream, {
        max_msgs: limits.maxKeys,
        discard: DiscardPolicy.Old,
        max_age: Math.max(config.max_age, maxAge),
      });
    }
    return new NatsRateLimitStore(kv, this.health, this.log.child({ bucket }));
  }

  async close(): Promise<void> {
    if (this.nc.isClosed()) return;
    await this.nc.close();
  }

  /** While the connection is down, hits are allowed at once instead of waiting for timeouts. */
  private async watch(): Promise<void> {
    for await (const status of this.nc.status()) {
      if (status.type === Events.Disconnect) {
        this.health.disconnected = true;
        this.health.failed(new Error('disconnected from NATS'));
      } else if (status.type === Events.Reconnect) {
        this.health.disconnected = false;
        this.health.succeeded();
      }
    }
  }
}

/** `<namespace>-ratelimit-<kind>`, with anything a bucket name may not hold replaced. */
export function bucketName(namespace: string, kind: string): string {
  return `${namespace}-ratelimit-${kind}`.replace(/[^-\w]/g, '_');
}
