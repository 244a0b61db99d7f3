import { performance } from 'node:perf_hooks';
import { Deliveries, DeliveryTally } from './clients.js';
import type { Fleet } from './fleet.js';
import { isRefusal, type Answer, type Credentials, type Http } from './http.js';
import { InFlight, openLoop } from './load.js';
import type { Manifest } from './setup.js';
import { Latency } from './stats.js';
import { Random, until } from './util.js';

/** More requests than this waiting for answers means the server has long stopped keeping up. */
const MAX_IN_FLIGHT = 5000;

export const KINDS = ['send', 'edit', 'react', 'read'] as const;
export type Kind = (typeof KINDS)[number];

export class KindStats {
  count = 0;
  ok = 0;
  /** Every answer but a success, refusals included. */
  errors = 0;
  /** Answers that are refusals (503 or 429): their latency is in `refusals`, not in `latency`. */
  refused = 0;
  readonly latency = new Latency();
  readonly refusals = new Refusals();

  /** Counts one answer; `intended` is when it was due (open loop). */
  record(answer: Answer, intended: number): boolean {
    const ok = answer.status === 200 && answer.body.result === 'success';
    if (ok) this.ok++;
    else this.errors++;
    if (isRefusal(answer)) {
      this.refused++;
      this.refusals.record(answer, intended);
    } else {
      this.latency.recordMs(answer.end - intended);
    }
    return ok;
  }
}

/** Refusals for load: how many, how fast they came, whether they said when to come back. */
export class Refusals {
  count = 0;
  withRetryAfter = 0;
  readonly latency = new Latency();

  record(answer: Answer, intended: number): void {
    this.count++;
    if (answer.retryAfter !== undefined) this.withRetryAfter++;
    this.latency.recordMs(answer.end - intended);
  }

  add(other: Refusals): void {
    this.count += other.count;
    this.withRetryAfter += other.withRetryAfter;
    this.latency.add(other.latency);
  }
}

/** Everything one step of load measured on one target. */
export class StepRecord {
  readonly kinds = Object.fromEntries(KINDS.map((k) => [k, new KindStats()])) as Record<Kind, KindStats>;
  readonly tally = new DeliveryTally();
  readonly errorSamples: string[] = [];
  start = performance.now();
  lastEnd = 0;
  lagMaxMs = 0;

  constructor(
    readonly offeredRate: number,
    readonly seconds: number,
  ) {}

  /** Successful sends per second over the step, or until its last answer when that came later. */
  get throughput(): number {
    const seconds = Math.max(this.seconds, (this.lastEnd - this.start) / 1000);
    return seconds > 0 ? Math.round((this.kinds.send.ok / seconds) * 10) / 10 : 0;
  }

  get errors(): number {
    return KINDS.reduce((n, k) => n + this.kinds[k].errors, 0);
  }
}

export interface TrafficMix {
  dmRatio: number;
  editRatio: number;
  reactRatio: number;
  readRatio: number;
}

/**
 * The chat workload against one target: senders post channel and direct
 * messages; with live clients (the real server) some of them also edit,
 * react and mark read, each kind in its own open loop (presence is a loop of
 * its own, presence.ts, since clients report it whether or not a step runs). The
 * baseline gets the same sends from the same users, and nothing else, since
 * it has no events.
 */
export class Traffic {
  private readonly rng: Random;
  private readonly inFlight = new InFlight();
  private readonly sent: Array<{ id: number; sender: Credentials }> = [];
  private readonly channelQueues: number[];
  private readonly channelsOf = new Map<number, number[]>();

  constructor(
    private readonly http: Http,
    private readonly manifest: Manifest,
    private readonly senders: number[],
    private readonly mix: TrafficMix,
    seed: number,
    private readonly fleet?: Fleet,
    private readonly deliveries = fleet?.deliveries ?? new Deliveries(),
  ) {
    this.rng = new Random(seed);
    manifest.channels.forEach((channel, c) => {
      for (const member of channel.members) this.channelsOf.set(member, [...(this.channelsOf.get(member) ?? []), c]);
    });
    this.channelQueues = manifest.channels.map((ch) => ch.members.reduce((n, i) => n + (fleet?.queueCount(i) ?? 0), 0));
  }

  async runStep(rate: number, seconds: number): Promise<StepRecord> {
    const step = new StepRecord(rate, seconds);
    const loops = [openLoop(rate, seconds, (t) => this.send(step, t))];
    const fleet = this.fleet;
    if (fleet) {
      const { editRatio, reactRatio, readRatio } = this.mix;
      loops.push(openLoop(rate * editRatio, seconds, (t) => this.edit(step, t)));
      loops.push(openLoop(rate * reactRatio, seconds, (t) => this.react(step, t)));
      loops.push(openLoop(rate * readRatio, seconds, (t) => this.read(step, t)));
    }
    const ends = await Promise.all(loops);
    step.lagMaxMs = Math.max(...ends.map((e) => e.lagMaxMs));
    await until(() => this.inFlight.count === 0, 60_000);
    // Deliveries trail the last answer a little; a step waits for them, within reason.
    if (fleet) await until(() => step.tally.received >= step.tally.expected, 5000);
    this.deliveries.forget(step.tally);
    return step;
  }

  private call(
    step: StepRecord,
    kind: Kind,
    intended: number,
    request: () => Promise<Answer>,
    then?: (a: Answer) => void,
  ) {
    const stats = step.kinds[kind];
    stats.count++;
    if (this.inFlight.count >= MAX_IN_FLIGHT) {
      // Counted as failed, not sent: the server is far behind, and more sockets would exhaust the harness's files.
      stats.errors++;
      const msg = `not sent: ${MAX_IN_FLIGHT} requests in flight`;
      if (step.errorSamples.length < 5) step.errorSamples.push(`${kind}: ${msg}`);
      then?.({ status: 0, body: { result: 'error', msg }, end: performance.now(), bytes: 0 });
      return;
    }
    void this.inFlight.track(request()).then((answer) => {
      if (kind === 'send') step.lastEnd = Math.max(step.lastEnd, answer.end);
      if (!stats.record(answer, intended) && step.errorSamples.length < 5) {
        step.errorSamples.push(`${kind}: ${answer.status} ${answer.body.msg}`);
      }
      then?.(answer);
    });
  }

  private send(step: StepRecord, intended: number): void {
    const { users } = this.manifest;
    const sender = users[this.rng.pick(this.senders)]!;
    const channels = this.channelsOf.get(sender.index) ?? [];
    const direct = channels.length === 0 || this.rng.next() < this.mix.dmRatio;
    let params: Record<string, unknown>;
    let expected: number;
    if (direct) {
      let to = this.rng.pick(this.senders);
      if (to === sender.index) to = this.senders[(this.senders.indexOf(to) + 1) % this.senders.length]!;
      expected = this.fleet?.queueCount(to) ?? 0;
      params = { type: 'direct', to: [users[to]!.userId] };
    } else {
      const c = this.rng.pick(channels);
      expected = this.channelQueues[c]! - (this.fleet?.queueCount(sender.index) ?? 0);
      params = { type: 'stream', to: this.manifest.channels[c]!.name, topic: `topic ${this.rng.int(10)}` };
    }
    const { seq, content } = this.deliveries.expect(intended, sender.index, expected, step.tally);
    const request = () => this.http.request('POST', '/messages', { ...params, content }, sender);
    this.call(step, 'send', intended, request, (answer) => {
      if (answer.status !== 200 || answer.body.result !== 'success') return this.deliveries.cancel(seq, expected);
      this.sent.push({ id: answer.body.id as number, sender });
      if (this.sent.length > 200) this.sent.shift();
    });
  }

  private edit(step: StepRecord, intended: number): void {
    const message = this.sent.pop();
    if (!message) return;
    const params = { content: `Edited by the load harness at ${Date.now()}` };
    this.call(step, 'edit', intended, () =>
      this.http.request('PATCH', `/messages/${message.id}`, params, message.sender),
    );
  }

  private react(step: StepRecord, intended: number): void {
    const client = this.fleet && this.rng.pick(this.fleet.clients);
    // Taken off the list: reacting twice with the same emoji is an error.
    const id = client?.recent.pop();
    if (!client || id === undefined) return;
    const request = () => this.http.request('POST', `/messages/${id}/reactions`, { emoji_name: 'tada' }, client.user);
    this.call(step, 'react', intended, request);
  }

  private read(step: StepRecord, intended: number): void {
    const client = this.fleet && this.rng.pick(this.fleet.clients);
    if (!client || client.recent.length === 0) return;
    const params = { messages: [...client.recent], op: 'add', flag: 'read' };
    this.call(step, 'read', intended, () => this.http.request('POST', '/messages/flags', params, client.user));
  }
}
