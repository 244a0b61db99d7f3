import {
  Carried,
  NoResponders,
  TransportClosed,
  TransportTimeout,
  type Subscription,
  type Transport,
  type TransportHandler,
  type TransportMessage,
} from '@chat/runtime';

/**
 * Subjects are dot-separated tokens as in NATS. A subscription may use `*`
 * for exactly one token and a trailing `>` for one or more tokens, so that a
 * host can serve e.g. `actor.channel.>` with one subscription.
 */
function matches(pattern: string[], subject: string[]): boolean {
  for (let i = 0; i < pattern.length; i++) {
    const token = pattern[i];
    if (token === '>' && i === pattern.length - 1) return subject.length > i;
    if (i >= subject.length) return false;
    if (token !== '*' && token !== subject[i]) return false;
  }
  return pattern.length === subject.length;
}

const isWildcard = (tokens: string[]) => tokens.some((t) => t === '*' || t === '>');

/** How many deliveries one turn of the event loop runs before I/O gets its turn (see `InProcessTransport`). */
export const TURN_DELIVERIES = 256;

/** Subjects whose subscriptions are remembered (`routes`); past it the memory starts again. */
const MAX_ROUTES = 10_000;

/**
 * A copy that is a plain Uint8Array. `Buffer#slice` returns a view (not a
 * copy), so a Buffer passed in would otherwise still be shared. A `Carried`
 * message goes as it is: its value is never changed once sent (see `Carried`).
 */
const copy = (data: Uint8Array): Uint8Array => (data instanceof Carried ? data : new Uint8Array(data));

interface Sub {
  readonly pattern: string;
  readonly tokens: string[];
  readonly handler: TransportHandler;
  readonly queue: string | undefined;
  active: boolean;
}

/** A subject's deliveries waiting for a turn; `next` is the first not yet run. */
interface Line {
  readonly runs: Array<() => void>;
  next: number;
}

/** The line's first waiting delivery; what has run is let go, so a line that never empties does not grow. */
function take(line: Line): () => void {
  const run = line.runs[line.next]!;
  line.runs[line.next++] = undefined as never;
  if (line.next > 1024 && line.next * 2 > line.runs.length) {
    line.runs.splice(0, line.next);
    line.next = 0;
  }
  return run;
}

interface PendingRequest {
  resolve(data: Uint8Array): void;
  reject(err: Error): void;
  /** When it times out (ms since the epoch). */
  readonly deadline: number;
  readonly subject: string;
  readonly timeoutMs: number;
}

export interface InProcessTransportOptions {
  /**
   * Called when a handler throws. Defaults to logging: one faulty handler
   * must not take down the process nor stop delivery to the others.
   */
  onHandlerError?: (err: unknown, subject: string) => void;
}

/**
 * The embedded transport: a map of subjects to handlers in this process. It
 * behaves like the wire where that is cheap: every delivery of bytes gets its
 * own copy, and handlers run in a later microtask, never inside the caller's
 * `publish`/`request`, so code that works here does not depend on synchronous
 * re-entrancy that a real network would not give it. The runtime's asks and
 * replies travel as values (`Carried`) rather than bytes: no JSON text is
 * written or parsed, and the receivers share the value, which nobody changes
 * once sent (the test runs freeze it and check it is plain JSON, `toWire`).
 *
 * Deliveries run as microtasks, at most `TURN_DELIVERIES` in one turn of the
 * event loop; the rest wait for the next turns in a line per subject, and
 * the turns serve the subjects' lines in turn. A cascade that does no I/O (a
 * fan-out to 10,000 users whose queues keep their events in memory) would
 * otherwise run to its end in one turn, holding back every socket write
 * meanwhile, and an ask made during it would wait for all of it: the send's
 * own reply went out only with the last delivery, 2.4 s later. Order is kept
 * per subject, as NATS keeps it (an actor's subject is its shard's, so an
 * actor gets what is sent to it in the order it was sent); between subjects
 * there is no order to keep, as between a cluster's hosts.
 */
export class InProcessTransport implements Transport {
  readonly carriesValues = true;
  private readonly exact = new Map<string, Set<Sub>>();
  private readonly wildcards = new Set<Sub>();
  private readonly pending = new Set<PendingRequest>();
  /** Round-robin cursor per queue group, so load spreads evenly. */
  private readonly cursors = new Map<string, number>();
  /** Each subject's matching subscriptions, as `candidates` found them; forgotten at every (un)subscription. */
  private readonly routes = new Map<string, Sub[]>();
  private readonly onHandlerError: (err: unknown, subject: string) => void;
  private closed = false;
  /** Deliveries past this turn's budget, per subject in the order they were made. */
  private readonly waiting = new Map<string, Line>();
  private budget = TURN_DELIVERIES;
  private turnEnds = false;
  /** One timer for the earliest deadline of the pending requests (`sweep`), not one per request. */
  private sweeper: NodeJS.Timeout | undefined;
  private sweepAt = Infinity;

  constructor(opts: InProcessTransportOptions = {}) {
    this.onHandlerError =
      opts.onHandlerError ?? ((err, subject) => console.error(`transport handler for ${subject} threw`, err));
  }

  subscribe(subject: string, handler: TransportHandler, opts: { queue?: string } = {}): Subscription {
    if (this.closed) throw new Error('transport is closed');
    const tokens = subject.split('.');
    const sub: Sub = { pattern: subject, tokens, handler, queue: opts.queue, active: true };
    this.routes.clear();
    if (isWildcard(tokens)) {
      this.wildcards.add(sub);
    } else {
      let set = this.exact.get(subject);
      if (!set) this.exact.set(subject, (set = new Set()));
      set.add(sub);
    }
    return {
      unsubscribe: () => {
        // Messages already queued for this subscriber are dropped at delivery.
        sub.active = false;
        this.routes.clear();
        this.wildcards.delete(sub);
        const set = this.exact.get(subject);
        set?.delete(sub);
        if (set?.size === 0) this.exact.delete(subject);
      },
    };
  }

  publish(subject: string, data: Uint8Array): void {
    if (this.closed) return; // at-most-once: a closed transport drops.
    for (const sub of this.recipients(subject)) this.deliver(sub, { subject, data: copy(data) });
  }

  request(subject: string, data: Uint8Array, timeoutMs: number): Promise<Uint8Array> {
    if (this.closed) return Promise.reject(new TransportClosed());
    const recipients = this.recipients(subject);
    if (recipients.length === 0) {
      return Promise.reject(new NoResponders(`no responders for ${subject}`));
    }
    return new Promise<Uint8Array>((resolve, reject) => {
      const settle = () => {
        this.pending.delete(entry);
        // Nothing pending keeps the process alive; the timer stays for the next requests.
        if (this.pending.size === 0) this.sweeper?.unref();
      };
      const entry: PendingRequest = {
        resolve: (reply) => {
          settle();
          resolve(reply);
        },
        reject: (err) => {
          settle();
          reject(err);
        },
        deadline: Date.now() + timeoutMs,
        subject,
        timeoutMs,
      };
      this.pending.add(entry);
      this.sweepBy(entry.deadline);
      // Several plain subscribers may all answer; like NATS, the first wins.
      const respond = (reply: Uint8Array) => {
        if (this.pending.has(entry)) entry.resolve(copy(reply));
      };
      for (const sub of recipients) this.deliver(sub, { subject, data: copy(data), respond });
    });
  }

  /** Sweeps the pending requests at `deadline` at the latest. */
  private sweepBy(deadline: number): void {
    if (deadline >= this.sweepAt) {
      if (this.pending.size === 1) this.sweeper!.ref();
      return;
    }
    clearTimeout(this.sweeper);
    this.sweepAt = deadline;
    this.sweeper = setTimeout(() => this.sweep(), Math.max(0, deadline - Date.now()));
  }

  /** Times out every request past its deadline, then waits for the earliest of the others. */
  private sweep(): void {
    this.sweeper = undefined;
    this.sweepAt = Infinity;
    const now = Date.now();
    let next = Infinity;
    for (const entry of [...this.pending]) {
      if (entry.deadline <= now) {
        entry.reject(new TransportTimeout(`no reply on ${entry.subject} within ${entry.timeoutMs} ms`));
      } else if (entry.deadline < next) next = entry.deadline;
    }
    if (next < Infinity) this.sweepBy(next);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const sub of this.wildcards) sub.active = false;
    for (const set of this.exact.values()) for (const sub of set) sub.active = false;
    this.wildcards.clear();
    this.exact.clear();
    this.routes.clear();
    for (const entry of [...this.pending]) entry.reject(new TransportClosed());
    clearTimeout(this.sweeper);
  }

  /**
   * Every plain subscriber, plus one member of each queue group. Queue groups
   * are keyed by subject pattern and queue name, as in NATS.
   */
  private recipients(subject: string): Sub[] {
    let candidates = this.routes.get(subject);
    if (!candidates) {
      candidates = this.candidates(subject);
      if (this.routes.size >= MAX_ROUTES) this.routes.clear();
      this.routes.set(subject, candidates);
    }
    if (!candidates.some((sub) => sub.queue !== undefined)) return candidates;

    const out: Sub[] = [];
    const groups = new Map<string, Sub[]>();
    for (const sub of candidates) {
      if (sub.queue === undefined) {
        out.push(sub);
        continue;
      }
      const key = `${sub.pattern}\u0000${sub.queue}`;
      const members = groups.get(key);
      if (members) members.push(sub);
      else groups.set(key, [sub]);
    }
    for (const [key, members] of groups) {
      const cursor = this.cursors.get(key) ?? 0;
      out.push(members[cursor % members.length]!);
      this.cursors.set(key, (cursor + 1) % members.length);
    }
    return out;
  }

  /** The subscriptions whose pattern matches `subject`. */
  private candidates(subject: string): Sub[] {
    const tokens = subject.split('.');
    const candidates = [...(this.exact.get(subject) ?? [])];
    for (const sub of this.wildcards) if (matches(sub.tokens, tokens)) candidates.push(sub);
    return candidates;
  }

  private deliver(sub: Sub, msg: TransportMessage): void {
    const run = () => {
      if (!sub.active || this.closed) return;
      try {
        sub.handler(msg);
      } catch (err) {
        this.onHandlerError(err, msg.subject);
      }
    };
    this.endTurnSoon();
    const line = this.waiting.get(msg.subject);
    if (line) line.runs.push(run);
    else if (this.budget > 0) {
      this.budget--;
      queueMicrotask(run);
    } else this.waiting.set(msg.subject, { runs: [run], next: 0 });
  }

  /**
   * At the turn's end the budget is whole again, and the deliveries waiting
   * take it first: one from each subject's line at a time, so a long line
   * does not hold back the others.
   */
  private endTurnSoon(): void {
    if (this.turnEnds) return;
    this.turnEnds = true;
    setImmediate(() => {
      this.turnEnds = false;
      this.budget = TURN_DELIVERIES;
      while (this.budget > 0 && this.waiting.size > 0) {
        for (const [subject, line] of this.waiting) {
          queueMicrotask(take(line));
          if (line.next === line.runs.length) this.waiting.delete(subject);
          if (--this.budget === 0) break;
        }
      }
      if (this.waiting.size > 0) this.endTurnSoon();
    });
  }
}
