import { connect, Events, type NatsConnection } from 'nats';
import {
  NoResponders,
  silentLogger,
  TransportClosed,
  type Logger,
  type Subscription,
  type Transport,
  type TransportHandler,
} from '@chat/runtime';
import { copyBytes, deliver, payloadError } from './nats-delivery.js';
import { Inbox } from './nats-inbox.js';

export interface NatsTransportOptions {
  /** One or more `nats://host:port` URLs (NATS_URL). */
  servers: string | string[];
  /** Prefix of every subject on the wire, so that clusters sharing a server never meet. */
  namespace: string;
  /** Connection name shown by the server's monitoring (e.g. the host id). */
  name?: string;
  log?: Logger;
  /** Pause between reconnect attempts; short, so that a restarted server is found again quickly. */
  reconnectWaitMs?: number;
}

const NAMESPACE = /^[a-z][a-z0-9_]{0,31}$/;

/**
 * The cluster transport: the port's subjects on a NATS server, each prefixed
 * with `<namespace>.`. Reconnects forever; while the connection is down a
 * request fails at once with `NoResponders` (nobody can be reached, which the
 * runtime answers with a retryable 503) instead of waiting for its timeout,
 * and a publish is dropped (at most once, as the port allows; nats.js would
 * discard its buffer at the next dial anyway) and counted in `dropped`.
 * nats.js re-creates every subscription once the connection is back.
 */
export class NatsTransport implements Transport {
  private readonly prefix: string;
  private readonly inbox: Inbox;
  private connected = true;
  private closed = false;
  /** Messages published while the connection was down, and so never sent. */
  dropped = 0;

  private constructor(
    private readonly nc: NatsConnection,
    namespace: string,
    private readonly log: Logger,
  ) {
    this.prefix = `${namespace}.`;
    this.inbox = new Inbox(nc, log);
    void this.watch();
  }

  static async connect(options: NatsTransportOptions): Promise<NatsTransport> {
    if (!NAMESPACE.test(options.namespace)) {
      throw new Error(`namespace must be lowercase letters, digits or _, start with a letter, at most 32 characters`);
    }
    const log = (options.log ?? silentLogger).child({ component: 'nats-transport' });
    let nc: NatsConnection;
    try {
      nc = await connect({
        servers: options.servers,
        ...(options.name === undefined ? {} : { name: options.name }),
        maxReconnectAttempts: -1,
        reconnectTimeWait: options.reconnectWaitMs ?? 250,
        reconnectJitter: 100,
        // Frequent pings notice a silently dead connection (no FIN) within seconds.
        pingInterval: 5_000,
        maxPingOut: 2,
        // No stack captured per timer and per flush (we read errors by code). Requests no longer go
        // through nats.js (`nats-inbox.ts`), whose `request()` builds an error after each reply.
        noAsyncTraces: true,
      });
    } catch (err) {
      throw new Error(`cannot connect to NATS at ${String(options.servers)}: ${(err as Error).message}`);
    }
    log.info({ server: nc.getServer(), namespace: options.namespace }, 'connected to NATS');
    return new NatsTransport(nc, options.namespace, log);
  }

  /** False while the connection is down and being re-established (for health checks). */
  get isConnected(): boolean {
    return this.connected && !this.closed;
  }

  /** Largest payload the server takes (its `max_payload`, 1 MiB by default). */
  get maxPayload(): number {
    return this.nc.info?.max_payload ?? 1024 * 1024;
  }

  request(subject: string, data: Uint8Array, timeoutMs: number): Promise<Uint8Array> {
    if (this.closed) return Promise.reject(new TransportClosed());
    if (!this.connected) {
      return Promise.reject(new NoResponders(`not connected to NATS (reconnecting); cannot reach ${subject}`));
    }
    const tooLarge = payloadError(subject, data, this.maxPayload);
    if (tooLarge) return Promise.reject(tooLarge);
    return this.inbox.request(this.wire(subject), subject, copyBytes(data), timeoutMs);
  }

  publish(subject: string, data: Uint8Array): void {
    if (this.closed) return; // at most once: a closed transport drops.
    const tooLarge = payloadError(subject, data, this.maxPayload);
    if (tooLarge) throw tooLarge;
    if (!this.connected) {
      if (this.dropped++ % 1000 === 0)
        this.log.warn({ subject, dropped: this.dropped }, 'NATS is down: message dropped');
      return;
    }
    this.nc.publish(this.wire(subject), copyBytes(data));
  }

  subscribe(subject: string, handler: TransportHandler, opts: { queue?: string } = {}): Subscription {
    if (this.closed) throw new Error('transport is closed');
    let active = true;
    const sub = this.nc.subscribe(this.wire(subject), {
      ...(opts.queue === undefined ? {} : { queue: opts.queue }),
      callback: (err, msg) => {
        if (err) this.log.warn({ subject, err: err.message }, 'NATS subscription error');
        else if (active) deliver(this.delivery, handler, msg);
      },
    });
    return {
      unsubscribe: () => {
        active = false;
        if (!sub.isClosed()) sub.unsubscribe();
      },
    };
  }

  /**
   * Resolves once the server has processed everything sent so far, the
   * subscriptions included: a host can await it before it announces that it
   * serves its shards, so that nobody meets NoResponders in between.
   */
  async flush(): Promise<void> {
    if (!this.closed && this.connected) await this.nc.flush();
  }

  /** Lets subscriptions finish what they hold, then closes; pending requests are rejected. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.inbox.close(new TransportClosed());
    if (this.nc.isClosed()) return;
    // Draining needs the server; during an outage it would wait for the reconnect, so just close.
    if (!this.connected) return this.nc.close();
    await this.nc.drain().catch(() => this.nc.close());
  }

  private get delivery() {
    return { prefixLength: this.prefix.length, maxPayload: this.maxPayload, log: this.log };
  }

  private wire(subject: string): string {
    return this.prefix + subject;
  }

  /** Follows the connection's state, so that requests fail fast during an outage. */
  private async watch(): Promise<void> {
    for await (const status of this.nc.status()) {
      if (status.type === Events.Disconnect) {
        this.connected = false;
        this.log.warn({ server: status.data }, 'disconnected from NATS; reconnecting');
      } else if (status.type === Events.Reconnect) {
        this.connected = true;
        this.log.info({ server: status.data }, 'reconnected to NATS');
      }
    }
  }
}
