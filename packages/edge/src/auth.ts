import type { Logger } from 'pino';
import type { ActorClient } from '@chat/runtime';
import { ChatError } from '@chat/protocol';
import type { AuthMode, Principal, RequestInfo } from './route.js';

export interface Credentials {
  email: string;
  apiKey: string;
}

/** What `authenticate` may use besides the credentials: the realm is chosen by host. */
export interface AuthRequest {
  request: RequestInfo;
  requestId: string;
  log: Logger;
  actors: ActorClient;
}

/**
 * Injected by the server: resolves credentials to a principal, or throws a
 * `ChatError` (INVALID_API_KEY, USER_DEACTIVATED, REALM_DEACTIVATED, ...).
 */
export type Authenticate = (credentials: Credentials, req: AuthRequest) => Promise<Principal>;

/** Injected by the server: the principal of a browser session's key, or undefined for none (unknown, ended, expired). */
export type SessionAuthenticate = (key: string, req: AuthRequest) => Promise<Principal | undefined>;

// The reference server's wording, which some clients show as is.
const NOT_LOGGED_IN = 'Not logged in: API authentication or user session required';
const MALFORMED = 'Invalid authorization header for basic auth';
const NOT_BASIC = 'This endpoint requires HTTP basic authentication.';
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** How many headers' credentials are kept read (a long poll sends the same header every time); past it, all go. */
const KEPT_HEADERS = 20_000;
const read = new Map<string, Readonly<Credentials>>();

/**
 * Reads `Authorization: Basic base64(email:api_key)`. Returns undefined when
 * the header is absent; throws UNAUTHORIZED when it is present but unreadable.
 * A header read before gives the same (frozen) credentials again; whether
 * they are valid is the caller's to check each time.
 */
export function basicCredentials(header: string | undefined): Credentials | undefined {
  if (header === undefined || header === '') return undefined;
  const known = read.get(header);
  if (known) return known;
  const credentials = Object.freeze(readBasic(header));
  if (read.size >= KEPT_HEADERS) read.clear();
  read.set(header, credentials);
  return credentials;
}

function readBasic(header: string): Credentials {
  const [scheme, token, ...rest] = header.trim().split(/\s+/);
  if (scheme === undefined || token === undefined || rest.length > 0) throw unauthorized(MALFORMED);
  if (scheme.toLowerCase() !== 'basic') throw unauthorized(NOT_BASIC);
  if (!BASE64.test(token)) throw unauthorized(MALFORMED);
  const decoded = Buffer.from(token, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw unauthorized(MALFORMED);
  return { email: decoded.slice(0, colon), apiKey: decoded.slice(colon + 1) };
}

/** Applies a route's auth mode to the request's Authorization header. */
export async function principalFor(
  mode: AuthMode,
  header: string | undefined,
  authenticate: Authenticate,
  req: AuthRequest,
): Promise<Principal | undefined> {
  if (mode === 'none') return undefined;
  const credentials = basicCredentials(header);
  if (credentials === undefined) {
    if (mode === 'required') throw unauthorized(NOT_LOGGED_IN);
    return undefined;
  }
  return authenticate(credentials, req);
}

const unauthorized = (msg: string) => new ChatError('UNAUTHORIZED', msg);
