import { DEFAULT_RATE_LIMITS, type RateLimitSettings } from '@chat/edge';

/**
 * Rate limits from the environment, defaulting to the original's rules:
 *
 * - `RATE_LIMITING`: `false` (or 0, no, off) turns every limit off.
 * - `RATE_LIMIT_USER` (200) requests per `RATE_LIMIT_WINDOW_SECONDS` (60) by one authenticated user.
 * - `RATE_LIMIT_IP` (100) requests per window without credentials, by client address.
 * - `RATE_LIMIT_LOGIN_FAILURES` (5) password attempts on one username per
 *   `RATE_LIMIT_LOGIN_WINDOW_SECONDS` (1800); a right password clears them.
 * - `RATE_LIMIT_MAX_KEYS` (100000): users, addresses or usernames each table keeps at most.
 *
 * Undefined when limiting is off.
 */
export function readRateLimitSettings(env: NodeJS.ProcessEnv): RateLimitSettings | undefined {
  const enabled = env.RATE_LIMITING?.toLowerCase();
  if (enabled !== undefined && enabled !== '') {
    if (['false', '0', 'no', 'off'].includes(enabled)) return undefined;
    if (!['true', '1', 'yes', 'on'].includes(enabled)) {
      throw new Error(`RATE_LIMITING must be true or false, got '${env.RATE_LIMITING}'`);
    }
  }
  const defaults = DEFAULT_RATE_LIMITS;
  const windowMs = seconds(env, 'RATE_LIMIT_WINDOW_SECONDS', defaults.user.windowMs);
  return {
    user: { limit: positive(env, 'RATE_LIMIT_USER', defaults.user.limit), windowMs },
    ip: { limit: positive(env, 'RATE_LIMIT_IP', defaults.ip.limit), windowMs },
    login: {
      limit: positive(env, 'RATE_LIMIT_LOGIN_FAILURES', defaults.login.limit),
      windowMs: seconds(env, 'RATE_LIMIT_LOGIN_WINDOW_SECONDS', defaults.login.windowMs),
    },
    maxKeys: positive(env, 'RATE_LIMIT_MAX_KEYS', defaults.maxKeys),
  };
}

function positive(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got '${raw}'`);
  return value;
}

function seconds(env: NodeJS.ProcessEnv, name: string, fallbackMs: number): number {
  return positive(env, name, fallbackMs / 1000) * 1000;
}
