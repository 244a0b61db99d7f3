import { setTimeout as sleep } from 'node:timers/promises';
import type { KV, KvEntry } from 'nats';
import type { Logger } from '@chat/runtime';
import type { RateLimitHealth } from './nats-rate-limit-health.js';

/**
 * The shape of `@chat/edge`'s RateLimitHit and RateLimitStore, repeated here
 * so that the cluster adapters need not depend on the edge framework; the
 * store below is assignable to the edge's interface as it is.
 */
export interface SharedRateLimitHit {
  allowed: boolean;
  remaining: number;
  resetMs: number;
}

/** One kind's window, as stored: the count of allowed requests and when the window ends (epoch ms). */
interface Window {
  count: number;
  endsAt: number;
}

/** Compare-and-set attempts per round: within one edge a key's hits share a round, so only other edges race. */
const MAX_ATTEMPTS = 8;

/** One hit waiting for its key's next round; undefined when the round lost every race (then it is allowed). */
interface Waiter {
  limit: number;
  windowMs: number;
  done(hit: SharedRateLimitHit | undefined): void;
  fail(err: unknown): void;
}

/**
 * Fixed windows per key in one JetStream key-value bucket that every edge of
 * the cluster shares, with the semantics of the edge's MemoryRateLimitStore:
 * a window starts at the key's first request, and refused requests are not
 * counted (a refusal writes nothing). Counting is one get and one put
 * conditioned on the revision it read: of two edges taking the last request
 * of a window, one put fails and that edge reads again, so the limit holds
 * exactly. On one edge, the hits on a key that arrive while a round is out
 * wait and go together in the next round (one get and one put for all of
 * them), so that an edge never races itself and a busy edge cannot starve
 * a quieter one by winning every race. The bucket's max age (at least the
 * window) drops windows nobody uses any more.
 *
 * Failing open: if NATS cannot be reached, or a round keeps losing races,
 * the request is allowed. A rate limit protects the service; refusing
 * every request (or answering 5xx) because the counter is away would turn
 * a NATS outage into a full outage. Windows use this process's clock, so
 * edges' clocks should agree within a small part of a window.
 */
export class NatsRateLimitStore {
  /** Hits waiting for their key's next round. */
  private readonly queued = new Map<string, Waiter[]>();
  /** Keys with a round out. */
  private readonly running = new Set<string>();

  constructor(
    private readonly kv: KV,
    private readonly health: RateLimitHealth,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  async hit(key: string, limit: number, windowMs: number): Promise<SharedRateLimitHit> {
    const allow: SharedRateLimitHit = { allowed: true, remaining: Math.max(0, limit - 1), resetMs: windowMs };
    if (!this.health.usable) return allow;
    try {
      const hit = await new Promise<SharedRateLimitHit | undefined>((done, fail) => {
        const waiters = this.queued.get(key);
        if (waiters) return void waiters.push({ limit, windowMs, done, fail });
        this.queued.set(key, [{ limit, windowMs, done, fail }]);
        // On the next microtask, so that the hits of one burst go in one round.
        if (!this.running.has(key)) queueMicrotask(() => void this.rounds(key));
      });
      this.health.succeeded();
      return hit ?? allow;
    } catch (err) {
      this.health.failed(err);
      return allow;
    }
  }

  /** Deletes the key; a round racing it on another edge sees the revision change and reads again. */
  async reset(key: string): Promise<void> {
    if (!this.health.usable) return;
    try {
      await this.kv.delete(kvKey(key));
      this.health.succeeded();
    } catch (err) {
      this.health.failed(err);
    }
  }

  private async rounds(key: string): Promise<void> {
    if (this.running.has(key)) return;
    this.running.add(key);
    try {
      for (let batch = this.take(key); batch !== undefined; batch = this.take(key)) {
        if (!this.health.usable) {
          for (const waiter of batch) waiter.done(undefined);
          continue;
        }
        try {
          const hits = await this.round(kvKey(key), batch);
          batch.forEach((waiter, i) => waiter.done(hits?.[i]));
        } catch (err) {
          for (const waiter of batch) waiter.fail(err);
        }
      }
    } finally {
      this.running.delete(key);
    }
  }

  private take(key: string): Waiter[] | undefined {
    const batch = this.queued.get(key);
    this.queued.delete(key);
    return batch;
  }

  /** Counts a batch of hits in order; undefined when it lost every race (then allowed, and logged). */
  private async round(key: string, batch: Waiter[]): Promise<SharedRateLimitHit[] | undefined> {
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const entry = await this.kv.get(key);
      const now = this.now();
      const window = liveWindow(entry, now) ?? { count: 0, endsAt: now + batch[0]!.windowMs };
      const resetMs = window.endsAt - now;
      let count = window.count;
      const hits = batch.map((waiter): SharedRateLimitHit => {
        if (count >= waiter.limit) return { allowed: false, remaining: 0, resetMs };
        count += 1;
        return { allowed: true, remaining: waiter.limit - count, resetMs };
      });
      if (count === window.count) return hits;
      try {
        // Revision 0 means "only if the key has no entry"; a deleted or expired key has its marker's revision.
        await this.kv.put(key, encode({ count, endsAt: window.endsAt }), { previousSeq: entry?.revision ?? 0 });
        return hits;
      } catch (err) {
        if (!lostRace(err)) throw err;
        // Another edge wrote first: wait a little, at random, so that several racers spread out.
        await sleep(Math.random() * 2 ** attempt);
      }
    }
    this.log.warn({ attempts: MAX_ATTEMPTS, hits: batch.length }, 'rate limit count kept losing races: allowing');
    return undefined;
  }
}

/**
 * A key the bucket accepts: KV keys allow only letters, digits and `-_/=.`,
 * while usernames and addresses hold anything, so keys are base64url.
 */
export function kvKey(key: string): string {
  return key === '' ? '_' : Buffer.from(key, 'utf8').toString('base64url');
}

function encode(window: Window): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(window));
}

/** The entry's window if it is still running; a deleted, expired or unreadable entry starts a new one. */
function liveWindow(entry: KvEntry | null, now: number): Window | undefined {
  if (entry === null || entry.operation !== 'PUT') return undefined;
  try {
    const window = entry.json<Partial<Window>>();
    if (typeof window.count !== 'number' || typeof window.endsAt !== 'number') return undefined;
    return window.endsAt > now ? { count: window.count, endsAt: window.endsAt } : undefined;
  } catch {
    return undefined;
  }
}

/** JetStream's "wrong last sequence": the key changed since it was read. */
function lostRace(err: unknown): boolean {
  return (err as { api_error?: { err_code?: number } }).api_error?.err_code === 10071;
}
