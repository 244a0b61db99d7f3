import type { Route } from '@chat/edge';
import { accountRoutes } from './accounts.js';
import { channelRoutes } from './channels.js';
import { fetchRoutes } from './fetch.js';
import { messageEditRoutes } from './message-edit.js';
import { sendRoutes } from './send.js';
import { eventRoutes } from './events.js';
import { registerRoutes } from './register/route.js';
import { uploadRoutes } from './uploads.js';
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
    ...registerRoutes(options),
    ...eventRoutes(options),
    ...uploadRoutes(options),
  ];
}
export { createChannel, type NewChannelSpec } from './channel-create.js';
export { uploadDownloads, type RawContext, type RawDeps, type RawMiddleware } from './downloads.js';
export { tusUploads, type TusUploads } from './tus.js';
