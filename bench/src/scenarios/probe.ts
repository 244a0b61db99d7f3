import { performance } from 'node:perf_hooks';
import { DeliveryTally } from '../clients.js';
import type { Fleet } from '../fleet.js';
import type { Http } from '../http.js';
import { Latency } from '../stats.js';
import { sleep, until } from '../util.js';

export interface FanoutRecord {
  recipients: number;
  received: number;
  send_ms: number;
  /** From the send's start to the last recipient's poll; null when some never arrived. */
  last_delivery_ms: number | null;
  error?: string;
}

/** Messages sent one at a time to a channel, each waited for at every live queue of its members. */
export class Fanouts {
  readonly send = new Latency();
  readonly delivery = new Latency();
  readonly last = new Latency();
  readonly records: FanoutRecord[] = [];
  errors = 0;
  /** Recipient deliveries and the time spent fanning out, for deliveries per second. */
  delivered = 0;
  busyMs = 0;

  constructor(
    private readonly http: Http,
    private readonly fleet: Fleet,
    private readonly channel: number,
    /** How long a message's deliveries may take; by default scaled to its recipients (waitFor). */
    private readonly waitMs?: number,
  ) {}

  async one(senderIndex: number, record = true): Promise<FanoutRecord> {
    const { manifest, deliveries } = this.fleet;
    const channel = manifest.channels[this.channel]!;
    const sender = manifest.users[senderIndex]!;
    const expected =
      channel.members.reduce((n, i) => n + this.fleet.queueCount(i), 0) - this.fleet.queueCount(senderIndex);
    const tally = new DeliveryTally();
    const start = performance.now();
    const { seq, content } = deliveries.expect(start, senderIndex, expected, tally);
    const params = { type: 'stream', to: channel.name, topic: 'fanout', content };
    const answer = await this.http.request('POST', '/messages', params, sender, 60_000);
    const out: FanoutRecord = {
      recipients: expected,
      received: 0,
      send_ms: round(answer.end - start),
      last_delivery_ms: null,
    };
    if (answer.status !== 200) {
      deliveries.cancel(seq, expected);
      out.error = `${answer.status} ${answer.body.msg}`;
    } else {
      await until(() => tally.received >= expected, this.waitMs ?? waitFor(expected), 10);
      out.received = tally.received;
      if (tally.received >= expected) out.last_delivery_ms = round((expected > 0 ? tally.last : answer.end) - start);
    }
    deliveries.forget(tally);
    if (!record) return out;
    this.records.push(out);
    this.send.recordMs(answer.end - start);
    this.delivery.add(tally.latency);
    if (out.last_delivery_ms !== null) this.last.recordMs(out.last_delivery_ms);
    if (out.error || out.received < expected) this.errors++;
    this.delivered += tally.received;
    this.busyMs += Math.max(tally.last, answer.end) - start;
    return out;
  }

  /** `count` messages from rotating senders, a short pause between them, within the deadline. */
  async series(count: number, senders: number[], deadline: number, onEach?: (r: FanoutRecord) => void) {
    for (let i = 0; i < count && Date.now() < deadline; i++) {
      // Not inside `onEach?.(…)`: an optional call skips its arguments when there is no callback.
      const record = await this.one(senders[(i * 7919) % senders.length]!);
      onEach?.(record);
      await sleep(200);
    }
  }

  get deliveriesPerSecond(): number {
    return this.busyMs > 0 ? Math.round((this.delivered / this.busyMs) * 1000 * 10) / 10 : 0;
  }
}

const round = (ms: number) => Math.round(ms * 100) / 100;

/** A minute, or 5 ms per recipient for the biggest fan-outs (100 s for 20,000 queues): a slow server is measured, not cut off. */
export const waitFor = (recipients: number) => Math.max(60_000, recipients * 5);
