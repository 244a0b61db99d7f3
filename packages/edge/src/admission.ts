import type { Context, Next } from 'koa';
import { ChatError } from '@chat/protocol';
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
   * How long the oldest request of a route may have been in the server,
   * unanswered, before new requests of that route are refused (held to
   * twice the route's floor when that is more: a registration that costs
   * 60 ms when nothing queues is held to 120 ms). The age of the oldest
   * waiting work is CoDel's signal, read as the request comes rather than
   * from answers already given: a new send waits at least behind the sends
   * already queued at the realm's and the channel's actors, and refusing it
   * is what keeps the admitted ones within their goal. 0: never.
   */
  targetMs: number;
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
  targetMs: 50,
  deadlineMs: 10_000,
  retryAfterSeconds: 1,
};

export type RequestClass = 'poll' | 'work' | 'exempt';

/** What the edge is doing right now. */
export interface Load {
  inFlight: number;
  queued: number;
  polls: number;
  /** How late the event loop runs (a moving average of its ticks), in ms. */
  lagMs: number;
}

export type Refusal = 'lag' | 'slow route' | 'queue full' | 'polls';
export type Verdict = { verdict: 'admit' } | { verdict: 'wait' } | { verdict: 'refuse'; reason: Refusal };

/** GET /events is a long poll; /metrics must answer to whoever watches an overloaded server. */
export function classify(method: string, path: string): RequestClass {
  if (path === '/metrics') return 'exempt';
  if (method === 'GET' && (path === '/api/v1/events' || path === '/json/events')) return 'poll';
  return 'work';
}

/** Lag and a route's old requests refuse work only while at least this many requests are in flight. */
export const SHED_FLOOR = 4;

/** Admit, wait for a slot, or refuse, from the request's class and the edge's load alone. */
export function decide(cls: RequestClass, load: Load, settings: AdmissionSettings): Verdict {
  if (cls === 'exempt' || settings.maxInFlight === 0) return { verdict: 'admit' };
  if (cls === 'poll') return load.polls < settings.maxPolls ? { verdict: 'admit' } : refuse('polls');
  // A late loop with next to nothing in flight is the machine's doing (a neighbour, a start-up): refusing
  // the few requests there are would not help them.
  if (load.inFlight >= SHED_FLOOR && load.lagMs > settings.maxLagMs) return refuse('lag');
  if (load.inFlight < settings.maxInFlight && load.queued === 0) return { verdict: 'admit' };
  return load.queued < settings.maxQueued ? { verdict: 'wait' } : refuse('queue full');
}

const refuse = (reason: Refusal): Verdict => ({ verdict: 'refuse', reason });

/**
 * Once its route is known: whether the route's oldest request in flight has
 * waited longer than the target and longer than twice the route's floor
 * (the quickest answer it ever gave). A send queueing behind the realm's
 * actor is refused even while cheap requests keep the rest of the edge
 * quick; a route that is always slow (a registration) is held to its own
 * floor.
 */
export function slowRoute(
  route: { oldestMs: number | undefined; floorMs: number | undefined },
  inFlight: number,
  settings: AdmissionSettings,
): boolean {
  if (settings.maxInFlight === 0 || settings.targetMs === 0) return false;
  if (inFlight < SHED_FLOOR || route.oldestMs === undefined) return false;
  return route.oldestMs > Math.max(settings.targetMs, 2 * (route.floorMs ?? 0));
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

/** A route's requests in flight (when admission took each, ms) and the quickest answer it ever gave. */
class RouteLoad {
  readonly since: number[] = [];
  floorMs = Infinity;

  oldest(): number | undefined {
    let first: number | undefined;
    for (const at of this.since) if (first === undefined || at < first) first = at;
    return first;
  }
}

/**
 * The edge's admission: counts what is in flight, keeps the short line of
 * requests waiting for a slot (first come, first served; each leaves after
 * `maxWaitMs`), knows each route's requests in flight and floor, and sets
 * each admitted request's deadline.
 */
export class Admission {
  private inFlight = 0;
  private polls = 0;
  private readonly line: Waiter[] = [];
  private readonly routes = new Map<string, RouteLoad>();
  readonly stats: AdmissionStats = {
    admitted: 0,
    refused: { lag: 0, 'slow route': 0, 'queue full': 0, polls: 0, 'waited too long': 0 },
  };

  constructor(
    readonly settings: AdmissionSettings,
    private readonly lag: { lagMs: number } = { lagMs: 0 },
  ) {}

  get load(): Load {
    return { inFlight: this.inFlight, queued: this.line.length, polls: this.polls, lagMs: this.lag.lagMs };
  }

  /** How long the oldest work in flight has waited for its answer, in ms (0: none). */
  get oldestMs(): number {
    let oldest = Infinity;
    for (const route of this.routes.values()) oldest = Math.min(oldest, route.oldest() ?? Infinity);
    return oldest === Infinity ? 0 : performance.now() - oldest;
  }

  /**
   * Once the router knows the request's route: throws the refusal when the
   * route's oldest request in flight says it queues (`slowRoute`), else
   * counts the request in the route's. Long polls are not counted.
   */
  admitRoute(route: string, state: EdgeState): void {
    const admitted = state.admission;
    if (!admitted) return;
    let load = this.routes.get(route);
    if (!load) this.routes.set(route, (load = new RouteLoad()));
    const oldest = load.oldest();
    const verdict = {
      oldestMs: oldest === undefined ? undefined : performance.now() - oldest,
      floorMs: load.floorMs === Infinity ? undefined : load.floorMs,
    };
    if (slowRoute(verdict, this.inFlight, this.settings)) this.refuse('slow route');
    load.since.push(admitted.at);
    admitted.route = route;
  }

  private answered(admitted: EdgeState['admission']): void {
    const load = admitted?.route === undefined ? undefined : this.routes.get(admitted.route);
    if (!load) return;
    load.since.splice(load.since.indexOf(admitted!.at), 1);
    load.floorMs = Math.min(load.floorMs, performance.now() - admitted!.at);
  }

  /** Koa middleware: admits the request (maybe after a short wait) and frees its slot once answered. */
  middleware() {
    return async (ctx: Context & { state: EdgeState }, next: Next): Promise<void> => {
      const cls = classify(ctx.method, ctx.path);
      if (cls === 'exempt') return void (await next());
      const verdict = decide(cls, this.load, this.settings);
      if (verdict.verdict === 'refuse') this.refuse(verdict.reason);
      if (cls === 'poll') this.polls++;
      // A slot freed for a waiter is handed over, already counted.
      else if (verdict.verdict === 'wait') await this.waitForSlot();
      else this.inFlight++;
      this.stats.admitted++;
      if (this.settings.maxInFlight > 0) ctx.state.deadline = Date.now() + this.settings.deadlineMs;
      if (cls === 'work') ctx.state.admission = { at: performance.now() };
      try {
        await next();
      } finally {
        if (cls === 'poll') this.polls--;
        else {
          this.release();
          this.answered(ctx.state.admission);
        }
      }
    };
  }

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
