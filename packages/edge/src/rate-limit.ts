import type { Context, Next } from 'koa';
import { ChatError, type Principal } from '@chat/protocol';
import { MemoryRateLimitStore, type RateLimitStore } from './rate-limit-store.js';
import type { EdgeState } from './state.js';

export interface RateLimitRule {
  limit: number;
  windowMs: number;
}

/** The original's `RATE_LIMITING_RULES` that apply to the API. */
export interface RateLimitSettings {
  /** Requests of one authenticated user (`api_by_user`). */
  user: RateLimitRule;
  /** Requests without credentials from one client address (`api_by_ip`). */
  ip: RateLimitRule;
  /** Password attempts on one username; a right password clears them (`authenticate_by_username`). */
  login: RateLimitRule;
  /** Keys each in-memory table holds at most (see MemoryRateLimitStore). */
  maxKeys: number;
}

/** The original's defaults (zproject/default_settings.py). */
export const DEFAULT_RATE_LIMITS: RateLimitSettings = {
  user: { limit: 200, windowMs: 60_000 },
  ip: { limit: 100, windowMs: 60_000 },
  login: { limit: 5, windowMs: 30 * 60_000 },
  maxKeys: 100_000,
};

/** One limit applied to a request: what the X-RateLimit-* headers are made of. */
export interface AppliedLimit {
  limit: number;
  remaining: number;
  /** When the window ends, in epoch milliseconds. */
  resetAt: number;
}

/** The limits a handler applies itself, bound to its request (handed to it as `limits`). */
export interface RequestLimits {
  /** Counts a password attempt on `username`; throws RATE_LIMIT_HIT once the attempts are used up. */
  loginAttempt(username: string): Promise<void>;
  /** A right password clears the username's attempts, as the original does. */
  loginSucceeded(username: string): Promise<void>;
}

export interface RateLimitStores {
  user: RateLimitStore;
  ip: RateLimitStore;
  login: RateLimitStore;
}

/**
 * Applies the limits, the way the original does: after authentication, an
 * authenticated request counts against its user and any other against its
 * client address. Each kind has its own store, so that a flood of distinct
 * addresses can only evict address counts, never a username's failures.
 */
export class RateLimiter {
  private readonly stores: RateLimitStores;

  constructor(
    readonly settings: RateLimitSettings,
    stores?: RateLimitStores,
  ) {
    this.stores = stores ?? {
      user: new MemoryRateLimitStore(settings.maxKeys),
      ip: new MemoryRateLimitStore(settings.maxKeys),
      login: new MemoryRateLimitStore(settings.maxKeys),
    };
  }

  async request(state: EdgeState, principal: Principal | undefined, ip: string): Promise<void> {
    if (principal) {
      await this.apply(state, this.stores.user, `${principal.realm}:${principal.user_id}`, this.settings.user);
    } else {
      await this.apply(state, this.stores.ip, clientAddress(ip), this.settings.ip);
    }
  }

  forRequest(state: EdgeState): RequestLimits {
    return {
      loginAttempt: (username) => this.apply(state, this.stores.login, username, this.settings.login),
      loginSucceeded: (username) => this.stores.login.reset(username),
    };
  }

  private async apply(state: EdgeState, store: RateLimitStore, key: string, rule: RateLimitRule): Promise<void> {
    const hit = await store.hit(key, rule.limit, rule.windowMs);
    (state.rateLimits ??= []).push({ limit: rule.limit, remaining: hit.remaining, resetAt: Date.now() + hit.resetMs });
    if (!hit.allowed) {
      // The original's body carries the wait in seconds as a float; the funnel adds Retry-After from it.
      throw new ChatError('RATE_LIMIT_HIT', 'API usage exceeded rate limit', { 'retry-after': hit.resetMs / 1000 });
    }
  }
}

/** An IPv4 client seen through a dual-stack socket is the same client as without the prefix. */
function clientAddress(ip: string): string {
  return ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice('::ffff:'.length) : ip;
}

/**
 * Sets the X-RateLimit-* headers on every response a limit applied to, as
 * the original's RateLimitMiddleware does: the strictest limit and
 * remaining count, and the latest reset as epoch seconds. It runs outside
 * the error funnel, which clears the headers of a failed request.
 */
export async function rateLimitHeaders(ctx: Context & { state: EdgeState }, next: Next): Promise<void> {
  await next();
  for (const [name, value] of limitHeaders(ctx.state.rateLimits)) ctx.set(name, value);
}

/** The X-RateLimit-* headers of the limits a request counted against (none when it counted against none). */
export function limitHeaders(applied: AppliedLimit[] | undefined): Array<[string, string]> {
  if (applied === undefined || applied.length === 0) return [];
  return [
    ['X-RateLimit-Limit', String(Math.min(...applied.map((a) => a.limit)))],
    ['X-RateLimit-Remaining', String(Math.min(...applied.map((a) => a.remaining)))],
    ['X-RateLimit-Reset', String(Math.floor(Math.max(...applied.map((a) => a.resetAt)) / 1000))],
  ];
}
