import { randomInt, timingSafeEqual } from 'node:crypto';
import { ChatError } from '@chat/protocol';

/**
 * CSRF tokens as the original's framework makes and checks them: a secret
 * of 32 letters and digits in the `csrftoken` cookie, and in a form or the
 * `X-CSRFToken` header either that secret or a 64-character masked form of
 * it (a random mask, then the secret shifted by the mask), so a page never
 * shows the same token twice.
 */
const CHARS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const SECRET_LENGTH = 32;
const VALID = /^[a-zA-Z0-9]+$/;

export const CSRF_COOKIE = 'csrftoken';
/** The browser session's cookie, as the original names it. */
export const SESSION_COOKIE = 'sessionid';
export const CSRF_HEADER = 'X-CSRFToken';

const randomString = (length: number) => Array.from({ length }, () => CHARS[randomInt(CHARS.length)]).join('');

export const newCsrfSecret = () => randomString(SECRET_LENGTH);

/** The secret masked for a page or a script. */
export function maskCsrfSecret(secret: string): string {
  const mask = randomString(SECRET_LENGTH);
  const cipher = [...secret].map((c, i) => CHARS[(CHARS.indexOf(c) + CHARS.indexOf(mask[i]!)) % CHARS.length]);
  return mask + cipher.join('');
}

function unmask(token: string): string {
  const mask = token.slice(0, SECRET_LENGTH);
  const cipher = token.slice(SECRET_LENGTH);
  return [...cipher]
    .map((c, i) => CHARS[(CHARS.indexOf(c) - CHARS.indexOf(mask[i]!) + CHARS.length) % CHARS.length])
    .join('');
}

export const isCsrfSecret = (value: string | undefined): value is string =>
  value !== undefined && value.length === SECRET_LENGTH && VALID.test(value);

const failed = (reason: string) => new ChatError('CSRF_FAILED', `CSRF error: ${reason}`, { reason });

/**
 * Throws CSRF_FAILED, with the original's reasons, unless `token` (from a
 * form field, `source` 'POST', or the header) matches the cookie's secret.
 */
export function checkCsrf(cookie: string | undefined, token: string | undefined, source: 'POST' | 'header'): void {
  if (!isCsrfSecret(cookie)) throw failed('CSRF cookie not set.');
  if (token === undefined) throw failed('CSRF token missing.');
  const from = source === 'POST' ? 'POST' : "the 'X-Csrftoken' HTTP header";
  if (token.length !== SECRET_LENGTH && token.length !== 2 * SECRET_LENGTH) {
    throw failed(`CSRF token from ${from} has incorrect length.`);
  }
  if (!VALID.test(token)) throw failed(`CSRF token from ${from} has invalid characters.`);
  const secret = token.length === SECRET_LENGTH ? token : unmask(token);
  if (!timingSafeEqual(Buffer.from(secret), Buffer.from(cookie))) throw failed(`CSRF token from ${from} incorrect.`);
}

/** The cookies of a `Cookie` header, by name (the first of a repeated name wins). */
export function parseCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    if (name && !cookies.has(name)) cookies.set(name, decodeURIComponent(part.slice(eq + 1).trim()));
  }
  return cookies;
}

export interface CookieOptions {
  maxAgeSeconds: number;
  httpOnly: boolean;
  secure: boolean;
}

/** A `Set-Cookie` value as the original's framework writes one (`Path=/`, `SameSite=Lax`). */
export function setCookie(name: string, value: string, options: CookieOptions): string {
  const expires = new Date(Date.now() + options.maxAgeSeconds * 1000).toUTCString();
  return [
    `${name}=${value}`,
    `expires=${expires}`,
    ...(options.httpOnly ? ['HttpOnly'] : []),
    `Max-Age=${options.maxAgeSeconds}`,
    'Path=/',
    'SameSite=Lax',
    ...(options.secure ? ['Secure'] : []),
  ].join('; ');
}
