import type { Logger } from 'pino';
import type { Principal } from './route.js';
import type { AppliedLimit } from './rate-limit.js';

/** What the edge keeps on `ctx.state` for one request. */
export interface EdgeState {
  requestId: string;
  /** Bound to the request id, so every line of one request can be found together. */
  log: Logger;
  /** The matched route's template (`/api/v1/users/{user_id}`), never the raw path: it labels metrics. */
  route?: string;
  /** The raw path carries a secret (a mailed link's key, a download token): the request log shows only `route`. */
  secretPath?: boolean;
  principal?: Principal;
  /** The rate limits this request counted against, for the X-RateLimit-* headers. */
  rateLimits?: AppliedLimit[];
  /** When admission gave up on this request (ms since the epoch): its asks to the actors end by then. */
  deadline?: number;
}
