/** What counting one request against a key's limit found. */
export interface RateLimitHit {
  /** False when the key had used its whole limit: the request was not counted. */
  allowed: boolean;
  /** Requests the key may still make in the current window, this one counted. */
  remaining: number;
  /** Milliseconds until the window ends and the key has its whole limit again. */
  resetMs: number;
}

/**
 * Where request counts live. In memory for one edge; a cluster of edges needs
 * an implementation that every edge shares, behind the same two calls.
 */
export interface RateLimitStore {
  hit(key: string, limit: number, windowMs: number): Promise<RateLimitHit>;
  /** Forgets the key's count (a successful login clears its failures). */
  reset(key: string): Promise<void>;
}

interface Window {
  count: number;
  endsAt: number;
}

/**
 * Fixed windows per key, each starting at the key's first request. Memory is
 * bounded: at `maxKeys` keys, expired windows are dropped, and if that frees
 * too little the oldest windows go, down to 90% of the cap, so a flood of
 * distinct keys (addresses) costs one sweep per tenth of the cap, not per
 * request. Evicting a live window only forgives its count.
 */
export class MemoryRateLimitStore implements RateLimitStore {
  // A Map iterates in insertion order, and a window is re-inserted when it
  // starts again, so the first entries are the oldest windows.
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly maxKeys = 100_000,
    private readonly now: () => number = Date.now,
  ) {
    if (maxKeys < 1) throw new Error('a rate limit store must hold at least one key');
  }

  get size(): number {
    return this.windows.size;
  }

  async hit(key: string, limit: number, windowMs: number): Promise<RateLimitHit> {
    const now = this.now();
    let window = this.windows.get(key);
    if (window === undefined || window.endsAt <= now) {
      this.windows.delete(key);
      this.makeRoom(now);
      window = { count: 0, endsAt: now + windowMs };
      this.windows.set(key, window);
    }
    const resetMs = window.endsAt - now;
    // Refused requests are not counted, as the original does: a client that
    // keeps retrying is free again when the window ends.
    if (window.count >= limit) return { allowed: false, remaining: 0, resetMs };
    window.count += 1;
    return { allowed: true, remaining: limit - window.count, resetMs };
  }

  async reset(key: string): Promise<void> {
    this.windows.delete(key);
  }

  private makeRoom(now: number): void {
    if (this.windows.size < this.maxKeys) return;
    for (const [key, window] of this.windows) if (window.endsAt <= now) this.windows.delete(key);
    const target = Math.floor(this.maxKeys * 0.9);
    for (const key of this.windows.keys()) {
      if (this.windows.size <= target) break;
      this.windows.delete(key);
    }
  }
}
