import type { Context, Next } from 'koa';
import { ChatError } from '@chat/protocol';
import { Limit } from './limit.js';
import { Quickest } from './quickest.js';
import type { EdgeState } from './state.js';

/**
 * Admission control: what the edge takes on when it is behind. A request
 * the server cannot take in time is refused at once (503 `OVERLOADED` with
 * `Retry-After`, which Zulip's clients honour with backoff) rather than
 * queued until its client gives up. Long polls are a class of their own:
 * they wait for minutes doing nothing, so they never hold a slot of the
 * work that sends, marks and registers.
 */
export interface AdmissionSettings {
  /** Requests other than long polls handled at once (0: no admission control at all). */
  maxInFlight: number;
  /** Requests that may wait for a slot; beyond that they are refused at once. */
  maxQueued: number;
  /** The longest a request waits for a slot before it is refused. */
  maxWaitMs: number;
  /** Long polls (GET /events) held at once. */
  maxPolls: number;
  /** Event-loop lag above which new work (not polls) is refused at once. */
  maxLagMs: number;
  /**
   * When even the quickest work answered in the last interval took longer
   * than this, requests are queueing inside the server (in actors'
   * mailboxes, behind the journal), whatever the event loop says: new work
   * is refused until one is quick again (as CoDel does). Also the wait
   * beyond its route's floor that the median answer may take before the
   * limit of work in flight is cut (`Limit`). 0: never.
   */
  targetMs: number;
  /** The interval of `targetMs`. */
  intervalMs: number;
  /** The time an admitted request's asks to the actors share (its deadline). */
  deadlineMs: number;
  /** What `Retry-After` says, in seconds. */
  retryAfterSeconds: number;
}

export const DEFAULT_ADMISSION: AdmissionSettings = {
  maxInFlight: 64,
  maxQueued: 256,
  maxWaitMs: 50,
  maxPolls: 50_000,
  maxLagMs: 30,
  targetMs: 30,
  intervalMs: 200,
  deadlineMs: 10_000,
  retryAfterSeconds: 1,
};

export type RequestClass = 'poll' | 'work' | 'exempt';

/** What an exempt request frees once answered. */
const NOTHING_TO_FREE = () => {};

/** What the edge is doing right now. */
export interface Load {
  inFlight: number;
  queued: number;
  polls: number;
  /** How late the event loop runs (a moving average of its ticks), in ms. */
  lagMs: number;
  /** The quickest work answered in the last whole interval, in ms; undefined when none was. */
  quickestMs?: number | undefined;
  /** The work that may be in flight now (`Limit`); beyond it work is refused at once. Undefined: `maxInFlight`. */
  limit?: number | undefined;
}

export type Refusal = 'lag' | 'slow' | 'limit' | 'slow route' | 'queue full' | 'polls';
export type Verdict = { verdict: 'admit' } | { verdict: 'wait' } | { verdict: 'refuse'; reason: Refusal };

/** GET /events is a long poll; /metrics must answer to whoever watches an overloaded server. */
export function classify(method: string, path: string): RequestClass {
  if (path === '/metrics') return 'exempt';
  if (method === 'GET' && (path === '/api/v1/events' || path === '/json/events')) return 'poll';
  return 'work';
}

/** Lag and slowness refuse work only while at least this many requests are in flight. */
export const SHED_FLOOR = 4;

/** Admit, wait for a slot, or refuse, from the request's class and the edge's load alone. */
export function decide(cls: RequestClass, load: Load, settings: AdmissionSettings): Verdict {
  if (cls === 'exempt' || settings.maxInFlight === 0) return { verdict: 'admit' };
  if (cls === 'poll') return load.polls < settings.maxPolls ? { verdict: 'admit' } : refuse('polls');
  // A late loop or slow answers with next to nothing in flight are the machine's doing (a neighbour, a
  // start-up): refusing the few requests there are would not help them.
  const shedding = load.inFlight >= SHED_FLOOR;
  if (shedding && load.lagMs > settings.maxLagMs) return refuse('lag');
  const slow = settings.targetMs > 0 && load.quickestMs !== undefined && load.quickestMs > settings.targetMs;
  if (shedding && slow) return refuse('slow');
  // Under the bound, the limit refuses at once: waiting for a slot is for bursts of a server that answers in time.
  const limit = load.limit ?? settings.maxInFlight;
  if (limit < settings.maxInFlight && load.inFlight >= Math.max(limit, SHED_FLOOR)) return refuse('limit');
  if (load.inFlight < settings.maxInFlight && load.queued === 0) return { verdict: 'admit' };
  return load.queued < settings.maxQueued ? { verdict: 'wait' } : refuse('queue full');
}

const refuse = (reason: Refusal): Verdict => ({ verdict: 'refuse', reason });

/**
 * Once its route is known: whether the quickest answer of this route in
 * the last interval took more than the target and more than twice the
 * route's floor (its quickest when nothing queued). A send queueing behind
 * the realm's actor is refused even while cheap requests keep the edge's
 * quickest answer low; a route that is always slow (a registration) is
 * held to its own floor.
 */
export function slowRoute(
  route: { quickestMs: number | undefined; floorMs: number | undefined },
  inFlight: number,
  settings: AdmissionSettings,
): boolean {
  if (settings.maxInFlight === 0 || settings.targetMs === 0) return false;
  if (inFlight < SHED_FLOOR || route.quickestMs === undefined) return false;
  return route.quickestMs > Math.max(settings.targetMs, 2 * (route.floorMs ?? 0));
}

/** The refusal a client sees: the Zulip error envelope, 503, with `retry-after` in the body and the header. */
export function overloaded(retryAfterSeconds: number): ChatError {
  return new ChatError('OVERLOADED', 'The server is overloaded; try again later', {
    'retry-after': retryAfterSeconds,
  });
}

/**
 * Measures how late the event loop runs: a timer every `everyMs` notes how
 * much later than due it fired. `lagMs` is a moving average (each tick
 * counts a quarter), so one long task (a big registration, a collection)
 * does not refuse work, a loop that stays late does.
 */
export class LagMonitor {
  lagMs = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(everyMs = 10) {
    let due = performance.now() + everyMs;
    this.timer = setInterval(() => {
      const now = performance.now();
      this.lagMs = 0.75 * this.lagMs + 0.25 * Math.max(0, now - due);
      due = now + everyMs;
    }, everyMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

export interface AdmissionStats {
  admitted: number;
  refused: Record<Refusal | 'waited too long', number>;
}

interface Waiter {
  admit: () => void;
  timer: NodeJS.Timeout;
}

/**
 * The edge's admission: counts what is in flight, keeps the short line of
 * requests waiting for a slot (first come, first served; each leaves after
 * `maxWaitMs`), times the answers (all, and by route), and sets each
 * admitted request's deadline.
 */
export class Admission {
  private inFlight = 0;
  private polls = 0;
  private readonly line: Waiter[] = [];
  readonly stats: AdmissionStats = {
    admitted: 0,
    refused: { lag: 0, slow: 0, limit: 0, 'slow route': 0, 'queue full': 0, polls: 0, 'waited too long': 0 },
  };

  constructor(
    readonly settings: AdmissionSettings,
    private readonly lag: { lagMs: number } = { lagMs: 0 },
  ) {
    this.quickest = new Quickest(settings.intervalMs);
    const { maxInFlight, targetMs, intervalMs } = settings;
    if (maxInFlight > 0 && targetMs > 0) this.limit = new Limit(SHED_FLOOR, maxInFlight, targetMs, intervalMs);
  }

  /** Moved by how long admitted work waits; none when admission or its target is off. */
  private readonly limit: Limit | undefined;

  /** The quickest answers of all work, and by route template. */
  private readonly quickest: Quickest;
  private readonly routes = new Map<string, Quickest>();

  get load(): Load {
    return {
      inFlight: this.inFlight,
      queued: this.line.length,
      polls: this.polls,
      lagMs: this.lag.lagMs,
      quickestMs: this.quickest.lastMs,
      limit: this.limit?.value,
    };
  }

  /** Throws the refusal when the route's own answers say it queues (`slowRoute`). */
  admitRoute(route: string): void {
    const times = this.routes.get(route);
    if (!times) return;
    const verdict = { quickestMs: times.lastMs, floorMs: times.floorMs };
    if (slowRoute(verdict, this.inFlight, this.settings)) this.refuse('slow route');
  }

  private answered(started: number, route: string | undefined): void {
    const ms = performance.now() - started;
    this.quickest.record(ms);
    if (route === undefined) return;
    let times = this.routes.get(route);
    if (!times) this.routes.set(route, (times = new Quickest(this.settings.intervalMs)));
    const floor = times.floorMs;
    if (floor !== undefined) this.limit?.record(ms - floor);
    times.record(ms);
  }

  /** Koa middleware: admits the request (maybe after a short wait) and frees its slot once answered. */
  middleware() {
    return async (ctx: Context & { state: EdgeState }, next: Next): Promise<void> => {
      const done = await this.admit(ctx.method, ctx.path, ctx.state);
      try {
        await next();
      } finally {
        done();
      }
    };
  }

  /**
   * Admits a request (maybe after a short wait) or throws the refusal; the
   * function answered frees its slot once the request is answered. Answered
   * at once unless the request waits for a slot: a long poll's admission
   * keeps no promise alive.
   */
  admit(method: string, path: string, state: EdgeState): (() => void) | Promise<() => void> {
    const cls = classify(method, path);
    if (cls === 'exempt') return NOTHING_TO_FREE;
    const verdict = decide(cls, this.load, this.settings);
    if (verdict.verdict === 'refuse') this.refuse(verdict.reason);
    if (cls === 'poll') this.polls++;
    // A slot freed for a waiter is handed over, already counted.
    else if (verdict.verdict === 'wait') return this.waitForSlot().then(() => this.admitted(cls, state));
    else this.inFlight++;
    return this.admitted(cls, state);
  }

  private admitted(cls: Exclude<RequestClass, 'exempt'>, state: EdgeState): () => void {
    this.stats.admitted++;
    if (this.settings.maxInFlight > 0) state.deadline = Date.now() + this.settings.deadlineMs;
    if (cls === 'poll') return this.pollAnswered;
    const started = performance.now();
    return () => {
      this.release();
      this.answered(started, state.route);
    };
  }

  private readonly pollAnswered = () => {
    this.polls--;
  };

  private refuse(reason: keyof AdmissionStats['refused']): never {
    this.stats.refused[reason]++;
    throw overloaded(this.settings.retryAfterSeconds);
  }

  private waitForSlot(): Promise<void> {
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        admit: resolve,
        timer: setTimeout(() => {
          this.line.splice(this.line.indexOf(waiter), 1);
          try {
            this.refuse('waited too long');
          } catch (err) {
            reject(err);
          }
        }, this.settings.maxWaitMs),
      };
      this.line.push(waiter);
    });
  }

  /** A slot is free: it goes to the first in line (still counted in flight), or back to the pool. */
  private release(): void {
    const next = this.line.shift();
    if (!next) {
      this.inFlight--;
      return;
    }
    clearTimeout(next.timer);
    next.admit();
  }
}
