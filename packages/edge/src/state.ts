import type { Logger } from 'pino';
import type { Principal } from './route.js';

/** What the edge keeps on `ctx.state` for one request. */
export interface EdgeState {
  requestId: string;
  /** Bound to the request id, so every line of one request can be found together. */
  log: Logger;
  /** The matched route's template (`/api/v1/users/{user_id}`), never the raw path: it labels metrics. */
  route?: string;
  principal?: Principal;
}
