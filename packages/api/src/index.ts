import type { Route } from '@chat/edge';
import { accountRoutes } from './accounts.js';
import { channelRoutes } from './channels.js';
import { fetchRoutes } from './fetch.js';
import { messageEditRoutes } from './message-edit.js';
import { sendRoutes } from './send.js';
import type { ApiOptions } from './options.js';

export { authenticateWith } from './authenticate.js';
export { FEATURE_LEVEL, ZULIP_VERSION, type ApiOptions } from './options.js';

/** Every operation the server serves. */
export function apiRoutes(options: ApiOptions): Route[] {
  return [
    ...accountRoutes(options),
    ...sendRoutes(options),
    ...fetchRoutes(options),
    ...messageEditRoutes(options),
    ...channelRoutes(options),
  ];
}
export { createChannel, type NewChannelSpec } from './channel-create.js';
