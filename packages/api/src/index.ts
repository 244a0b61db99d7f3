import type { Route } from '@chat/edge';
import { accountRoutes } from './accounts.js';
import type { ApiOptions } from './options.js';

export { authenticateWith } from './authenticate.js';
export { FEATURE_LEVEL, ZULIP_VERSION, type ApiOptions } from './options.js';

/** Every operation the server serves. */
export function apiRoutes(options: ApiOptions): Route[] {
  return [...accountRoutes(options)];
}
