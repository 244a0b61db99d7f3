import type { RequestInfo } from '@chat/edge';
import type { FileStore } from '@chat/runtime';
import type { PushBouncer } from './ports/push-bouncer.js';
import type { Mailer } from './ports/mailer.js';
import type { ExportLimits } from './exports/size.js';

/** What the operations need to know about the server they run in. */
export interface ApiOptions {
  mode: 'development' | 'production';
  /** Base URL of the server as clients reach it, without a trailing slash. */
  externalUrl: string;
  /** The string id of the realm a request is for (chosen by Host). */
  realmOf(request: RequestInfo): string;
  /** Wildcard mentions reaching more people than this need `can_mention_many_users_group`. */
  wildcardThreshold: number;
  /** Realms with more active users than this announce no one coming online (clients poll presence). */
  presenceEventUserLimit: number;
  /** How long one topic deletion may run before it answers `complete: false`. */
  topicDeleteBudgetMs: number;
  /**
   * Outgoing webhooks may call loopback and private addresses (development
   * mode, or OUTGOING_WEBHOOKS_ALLOW_PRIVATE=true); otherwise such a call is refused.
   */
  allowPrivateWebhooks?: boolean;
  /** Where uploaded files are kept. */
  files: FileStore;
  /** The largest file an upload may hold (`max_file_upload_size_mib`). */
  maxFileUploadSizeMib: number;
  /** The largest organization a data export is made for automatically. */
  exportLimits: ExportLimits;
  /** A waiting `GET /events` is answered with a heartbeat after this long. */
  heartbeatMs: number;
  /**
   * A waiting poll asks its queue again after this long (cluster edges): a
   * poll held by a host that died is then taken up by the queue's next host
   * instead of hanging until the heartbeat. Unset: one ask per poll.
   */
  pollSliceMs?: number;
  /** Signs temporary upload URLs; every edge of a cluster needs the same (TEMPORARY_URL_KEY). Unset: one per process. */
  temporaryUrlKey?: Uint8Array;
  /** Where mobile push notifications go; without one, push notifications are not configured. */
  pushBouncer?: PushBouncer;
  /** Where invitations and address confirmations are mailed; without one they cannot be sent. */
  mailer?: Mailer;
  /** Minutes an invitation stays valid when the inviter does not say (`INVITATION_LINK_VALIDITY_MINUTES`). */
  invitationValidityMinutes?: number;
  /** A BigBlueButton server (`BIG_BLUE_BUTTON_URL`, `BIG_BLUE_BUTTON_SECRET`): video calls can then use it. */
  bigBlueButton?: { url: string; secret: string };
  /** The domain of made-up addresses when the server's host cannot be one (`FAKE_EMAIL_DOMAIN`; see email-domain.ts). */
  fakeEmailDomain?: string;
}

/** The feature level of the API this server implements. */
export const FEATURE_LEVEL = 420;
export const ZULIP_VERSION = '11.0';
