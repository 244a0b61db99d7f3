import { createHash, randomBytes } from 'node:crypto';
import {
  isCsrfSecret,
  newCsrfSecret,
  parseCookies,
  SESSION_COOKIE,
  CSRF_COOKIE,
  setCookie,
  type SessionAuthenticate,
} from '@chat/edge';
import { realmAddress, SESSION_AGE_SECONDS } from '@chat/protocol';
import type { ActorClient } from '@chat/runtime';
import type { ApiOptions } from '../options.js';

/**
 * Browser sessions (`sessionid` cookie): the RealmActor keeps them beside
 * the accounts (`actors/realm/src/accounts/sessions.ts`) under the SHA-256
 * of their key, so any edge finds them and a deactivation or a new
 * password ends them at once; the `csrftoken` cookie guards their writes
 * (`@chat/edge` csrf.ts).
 */
const KEY = /^[a-z0-9]{32}$/;
/** The original's `CSRF_COOKIE_AGE`: a year. */
const CSRF_AGE_SECONDS = 31_449_600;

const hashKey = (key: string) => createHash('sha256').update(key).digest('hex');
const newKey = () => [...randomBytes(32)].map((b) => 'abcdefghijklmnopqrstuvwxyz0123456789'[b % 36]).join('');

const secureCookies = (options: ApiOptions) => options.externalUrl.startsWith('https:');

/** The principal of a session key, for the edge's /json routes. */
export function sessionAuthenticate(options: ApiOptions): SessionAuthenticate {
  return async (key, req) => {
    if (!KEY.test(key)) return undefined;
    const realm = realmAddress(options.realmOf(req.request));
    const principal = await req.actors.ask(realm, {
      type: 'realm.sessionPrincipal',
      key_hash: hashKey(key),
    });
    return principal ?? undefined;
  };
}

/** The CSRF cookie a page must set: none when the browser has a good one. */
export function csrfCookie(options: ApiOptions, cookieHeader: string | undefined): { secret: string; header?: string } {
  const current = parseCookies(cookieHeader).get(CSRF_COOKIE);
  if (isCsrfSecret(current)) return { secret: current };
  const secret = newCsrfSecret();
  return { secret, header: csrfHeader(options, secret) };
}

const csrfHeader = (options: ApiOptions, secret: string) =>
  setCookie(CSRF_COOKIE, secret, { maxAgeSeconds: CSRF_AGE_SECONDS, httpOnly: false, secure: secureCookies(options) });

/**
 * Logs a user in: a new session, and a new CSRF secret (the original
 * rotates it at login). Answers the `Set-Cookie` values.
 */
export async function startSession(
  options: ApiOptions,
  actors: ActorClient,
  realm: string,
  userId: number,
): Promise<string[]> {
  const key = newKey();
  await actors.ask(realmAddress(realm), { type: 'realm.startSession', user_id: userId, key_hash: hashKey(key) });
  const secure = secureCookies(options);
  return [
    setCookie(SESSION_COOKIE, key, { maxAgeSeconds: SESSION_AGE_SECONDS, httpOnly: true, secure }),
    csrfHeader(options, newCsrfSecret()),
  ];
}

/** Logs out: ends the session of the cookie, if any; answers the `Set-Cookie` that clears it. */
export async function endSession(
  options: ApiOptions,
  actors: ActorClient,
  realm: string,
  cookieHeader: string | undefined,
): Promise<string> {
  const key = parseCookies(cookieHeader).get(SESSION_COOKIE);
  if (key !== undefined && KEY.test(key)) {
    await actors.ask(realmAddress(realm), { type: 'realm.endSession', key_hash: hashKey(key) });
  }
  const cleared = setCookie(SESSION_COOKIE, '""', { maxAgeSeconds: 0, httpOnly: true, secure: secureCookies(options) });
  return cleared.replace(/expires=[^;]+/, 'expires=Thu, 01 Jan 1970 00:00:00 GMT');
}
