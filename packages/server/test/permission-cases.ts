import type { Operation } from './matrix-model.js';
import { accountCases } from './permission-cases-accounts.js';
import { botCases } from './permission-cases-bots.js';
import { channelCases, channelLateCases } from './permission-cases-channels.js';
import { folderCases } from './permission-cases-folders.js';
import { groupCases } from './permission-cases-groups.js';
import { messageCases } from './permission-cases-messages.js';
import { orgCases } from './permission-cases-org.js';
import { linkifierCases } from './permission-cases-linkifiers.js';
import { profileFieldCases } from './permission-cases-profile-fields.js';
import { emojiCases } from './permission-cases-emoji.js';
import { userAdminCases } from './permission-cases-user-admin.js';
import { peopleCases } from './permission-cases-people.js';
import { personalCases } from './permission-cases-personal.js';
import { readingCases } from './permission-cases-reading.js';
import { mutingCases } from './permission-cases-muting.js';
import { ownAccountCases } from './permission-cases-own-account.js';
import { lookupCases } from './permission-cases-lookups.js';
import { scheduledCases } from './permission-cases-scheduled.js';
import { callCases } from './permission-cases-calls.js';
import { inviteLinkCases } from './permission-cases-invite-links.js';
import { exportCases } from './permission-cases-exports.js';

/**
 * The rows of the permission matrix (permission-matrix.test.ts): every
 * operation the server serves, each with the request of every caller and
 * the answer the spec and the reference give it. Each area's rows live in
 * a file of their own, with the rule each cell comes from.
 */
export const OPERATIONS: Operation[] = [
  ...accountCases,
  ...messageCases,
  ...channelCases,
  ...personalCases,
  ...peopleCases,
  ...groupCases,
  ...folderCases,
  ...botCases,
  ...orgCases,
  ...linkifierCases,
  ...profileFieldCases,
  ...emojiCases,
  ...userAdminCases,
  ...readingCases,
  ...mutingCases,
  ...ownAccountCases,
  ...lookupCases,
  ...callCases,
  ...inviteLinkCases,
  ...exportCases,
  ...scheduledCases,
  ...channelLateCases,
];

/** Routes served outside the schema-described API (they answer bytes or redirects too), so not in openapi.json. */
export const RAW_ROUTES: string[] = [];

/** The 22 operations of the interface spec (team-chat-api.md, "Endpoints"), as this server names their paths. */
export const SPEC_OPERATIONS = [
  'POST /messages',
  'PATCH /messages/{message_id}',
  'PATCH /settings',
  'PATCH /streams/{stream_id}',
  'POST /user_topics',
  'GET /messages/matches_narrow',
  'POST /fetch_api_key',
  'POST /invites',
  'POST /users/me/status',
  'POST /drafts',
  'PATCH /drafts/{draft_id}',
  'POST /streams/{stream_id}/delete_topic',
  'DELETE /users/me/subscriptions',
  'POST /users/me/apns_device_token',
  'DELETE /users/me/android_gcm_reg_id',
  'POST /navigation_views',
  'POST /mobile_push/test_notification',
  'GET /user_groups',
  'GET /users/{user_id}/status',
  'PATCH /channel_folders',
  'POST /register',
  'POST /user_uploads',
];
