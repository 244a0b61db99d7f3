import { channelAddress, EXPORT_FULL_WITH_CONSENT, realmAddress, userAddress, type Principal } from '@chat/protocol';
import type { ActorClient } from '@chat/runtime';
import { consentedSources } from './export.js';

/**
 * The largest organization exported automatically (the original's
 * MAX_MESSAGE_HISTORY and MAX_UPLOAD_QUOTA); a larger one is refused (400
 * BAD_REQUEST) naming the administrator's address, by default
 * "Please request a manual export from zulip-admin@example.com."
 * (`realm.requestExport` says it, after its weekly limit, as the original).
 */
export interface ExportLimits {
  /** Messages the export writes (EXPORT_MAX_MESSAGES; the original's 250000). */
  maxMessages: number;
  /** Bytes of uploaded files (EXPORT_MAX_UPLOAD_MIB; the original's 20 GiB). */
  maxUploadBytes: number;
  /** The address named in the refusal (ZULIP_ADMINISTRATOR). */
  administrator: string;
}

/**
 * Whether the organization holds more than the limits allow: its uploads, as
 * GET /attachments sums them (one ask of the caller's UserActor, which scans
 * the realm's attachment_owner rows), then the messages the export of
 * `exportType` writes (one ask per conversation, each answering the length
 * of its history): the public channels', archived ones included, and for a
 * full export with consent also the private channels and direct
 * conversations of those who consented (`consentedSources`, as the export
 * finds them; the original counts every message for it).
 */
export async function exportTooLarge(
  actors: ActorClient,
  caller: Principal,
  exportType: number,
  limits: ExportLimits,
): Promise<boolean> {
  const uploads = await actors.ask(userAddress(caller.realm, caller.user_id), { type: 'user.attachments' });
  if (uploads.upload_space_used > limits.maxUploadBytes) return true;
  const realm = realmAddress(caller.realm);
  const directory = await actors.ask(realm, { type: 'realm.channels' });
  const sources = directory.filter((c) => !c.invite_only).map((c) => channelAddress(caller.realm, c.channel_id));
  if (exportType === EXPORT_FULL_WITH_CONSENT) {
    const users = await actors.ask(realm, { type: 'realm.listUsers' });
    for (const source of await consentedSources(actors, caller.realm, users, directory)) sources.push(source.address);
  }
  const counts = await Promise.all(sources.map((address) => actors.ask(address, { type: 'channel.messageCount' })));
  return counts.reduce((sum, n) => sum + n, 0) > limits.maxMessages;
}
