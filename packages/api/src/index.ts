import type { Route } from '@chat/edge';
import { accountRoutes } from './users/accounts.js';
import { userAdminRoutes } from './users/manage.js';
import { defaultChannelRoutes } from './channels/default-channels.js';
import { apiKeyRoutes } from './users/api-key.js';
import { deactivationRoutes } from './users/deactivation.js';
import { channelRoutes } from './channels/channels.js';
import { fetchRoutes } from './messages/fetch.js';
import { messageEditRoutes } from './messages/edit.js';
import { flagRoutes } from './messages/flags.js';
import { readReceiptRoutes } from './messages/read-receipts.js';
import { reportRoutes } from './messages/report.js';
import { submessageRoutes } from './messages/submessage.js';
import { mutingRoutes } from './personal/muting.js';
import { scheduledRoutes } from './personal/scheduled.js';
import { channelLookupRoutes } from './channels/lookups.js';
import { mutedTopicRoutes } from './channels/muted-topics.js';
import { sendRoutes } from './messages/send.js';
import { eventRoutes } from './events/events.js';
import { registerRoutes } from './events/register/route.js';
import { uploadRoutes } from './uploads/uploads.js';
import { groupRoutes } from './groups/groups.js';
import { folderRoutes } from './realm/folders.js';
import { emojiRoutes } from './realm/emoji.js';
import { realmSettingsRoutes } from './realm/settings.js';
import { userDefaultsRoutes } from './realm/user-defaults.js';
import { playgroundRoutes } from './realm/playgrounds.js';
import { linkifierRoutes } from './realm/linkifiers.js';
import { welcomeBotRoutes } from './realm/welcome-bot.js';
import { profileFieldRoutes } from './realm/profile-fields.js';
import { draftRoutes } from './personal/drafts.js';
import { snippetRoutes } from './personal/snippets.js';
import { navigationViewRoutes } from './personal/navigation-views.js';
import { pushRoutes } from './personal/push.js';
import { e2eePushRoutes } from './personal/e2ee-push.js';
import { bigBlueButtonRoutes } from './calls/bigbluebutton.js';
import { exportRoutes } from './exports/routes.js';
import { inviteRoutes } from './invitations/invites.js';
import { inviteLinkRoutes } from './invitations/links.js';
import { settingsRoutes } from './users/settings.js';
import { statusRoutes } from './users/status.js';
import { presenceRoutes } from './users/presence.js';
import { typingRoutes } from './messages/typing.js';
import { botRoutes } from './bots/bots.js';
import { avatarRoutes } from './uploads/avatars.js';
import { withIncomingWebhookLimit } from './bots/incoming-webhooks.js';
import { botStorageRoutes } from './bots/storage.js';
import type { ApiOptions } from './options.js';

export { authenticateWith } from './authenticate.js';
export { FEATURE_LEVEL, ZULIP_VERSION, type ApiOptions } from './options.js';
export { fakeEmailDomain, fakeEmailDomainProblem } from './email-domain.js';

/** Every operation the server serves. */
export function apiRoutes(options: ApiOptions): Route[] {
  return withIncomingWebhookLimit([
    // First: its `{email}` routes take addresses before `{user_id}` routes see them.
    ...userAdminRoutes(options),
    ...accountRoutes(options),
    ...defaultChannelRoutes(),
    ...apiKeyRoutes(),
    ...deactivationRoutes(options),
    ...sendRoutes(options),
    ...fetchRoutes(options),
    ...messageEditRoutes(options),
    ...flagRoutes(),
    ...readReceiptRoutes(),
    ...reportRoutes(options),
    ...submessageRoutes(),
    ...mutingRoutes(),
    ...scheduledRoutes(options),
    ...channelLookupRoutes(),
    ...mutedTopicRoutes(),
    ...channelRoutes(options),
    ...registerRoutes(options),
    ...eventRoutes(options),
    ...uploadRoutes(options),
    ...groupRoutes(),
    ...folderRoutes(),
    ...emojiRoutes(options),
    ...realmSettingsRoutes(options),
    ...userDefaultsRoutes(options),
    ...playgroundRoutes(),
    ...linkifierRoutes(),
    ...welcomeBotRoutes(options),
    ...profileFieldRoutes(),
    ...draftRoutes(options),
    ...snippetRoutes(options),
    ...navigationViewRoutes(options),
    ...pushRoutes(options),
    ...e2eePushRoutes(options),
    ...bigBlueButtonRoutes(options),
    ...exportRoutes(options),
    ...inviteRoutes(options),
    ...inviteLinkRoutes(options),
    ...settingsRoutes(options),
    ...statusRoutes(options),
    ...presenceRoutes(options),
    ...typingRoutes(options),
    ...botRoutes(options),
    ...avatarRoutes(options),
    ...botStorageRoutes(),
  ]);
}
export { createChannel, createChannelActor, type NewChannelSpec } from './channels/create.js';
export { emojiData } from './events/register/emoji-data.js';
export { emojiImages } from './realm/emoji.js';
export { avatarImages } from './uploads/avatars.js';
export { unknownUserAvatar } from './users/unknown-avatar.js';
export { directAccessAdds } from './users/access-events.js';
export { uploadDownloads, type RawContext, type RawDeps, type RawMiddleware } from './uploads/downloads.js';
export { tusUploads, TUS_PATH, type TusUploads } from './uploads/tus.js';
export type { Mail, Mailer } from './ports/mailer.js';
export { confirmationPages } from './invitations/join.js';
export { bigBlueButtonJoin } from './calls/bigbluebutton.js';
export { exportDownloads } from './exports/routes.js';
export { sessionPages, type SessionPageDeps } from './sessions/pages.js';
export { sessionAuthenticate } from './sessions/sessions.js';
export type {
  PushBouncer,
  PushNotification,
  PushOutcome,
  PushPayload,
  E2eeRegistration,
  E2eeNotification,
} from './ports/push-bouncer.js';
export { BouncerError } from './ports/push-bouncer.js';
export { sweepOwedWebhooks } from './bots/outgoing.js';
