import type { Route } from '@chat/edge';
import { accountRoutes } from './accounts.js';
import { apiKeyRoutes } from './api-key.js';
import { deactivationRoutes } from './deactivation.js';
import { channelRoutes } from './channels.js';
import { fetchRoutes } from './fetch.js';
import { messageEditRoutes } from './message-edit.js';
import { sendRoutes } from './send.js';
import { eventRoutes } from './events.js';
import { registerRoutes } from './register/route.js';
import { uploadRoutes } from './uploads.js';
import { groupRoutes } from './groups.js';
import { folderRoutes } from './folders.js';
import { draftRoutes } from './drafts.js';
import { snippetRoutes } from './snippets.js';
import { navigationViewRoutes } from './navigation-views.js';
import { pushRoutes } from './push.js';
import { inviteRoutes } from './invites.js';
import { settingsRoutes } from './settings.js';
import { statusRoutes } from './status.js';
import { presenceRoutes } from './presence.js';
import { typingRoutes } from './typing.js';
import type { ApiOptions } from './options.js';

export { authenticateWith } from './authenticate.js';
export { FEATURE_LEVEL, ZULIP_VERSION, type ApiOptions } from './options.js';

/** Every operation the server serves. */
export function apiRoutes(options: ApiOptions): Route[] {
  return [
    ...accountRoutes(options),
    ...apiKeyRoutes(),
    ...deactivationRoutes(),
    ...sendRoutes(options),
    ...fetchRoutes(options),
    ...messageEditRoutes(options),
    ...channelRoutes(options),
    ...registerRoutes(options),
    ...eventRoutes(options),
    ...uploadRoutes(options),
    ...groupRoutes(),
    ...folderRoutes(),
    ...draftRoutes(options),
    ...snippetRoutes(options),
    ...navigationViewRoutes(options),
    ...pushRoutes(options),
    ...inviteRoutes(options),
    ...settingsRoutes(options),
    ...statusRoutes(options),
    ...presenceRoutes(options),
    ...typingRoutes(options),
  ];
}
export { createChannel, type NewChannelSpec } from './channel-create.js';
export { uploadDownloads, type RawContext, type RawDeps, type RawMiddleware } from './downloads.js';
export { tusUploads, type TusUploads } from './tus.js';
export type { Mail, Mailer } from './mailer.js';
export { confirmationPages } from './join.js';
export type { PushBouncer, PushNotification, PushOutcome, PushPayload } from './push-bouncer.js';
