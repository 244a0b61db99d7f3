import { channelAddress, realmAddress, userAddress, type Principal } from '@chat/protocol';
import type { ActorClient } from '@chat/runtime';

/**
 * The largest organization exported automatically (the original's
 * MAX_MESSAGE_HISTORY and MAX_UPLOAD_QUOTA); a larger one is refused (400
 * BAD_REQUEST) naming the administrator's address, by default
 * "Please request a manual export from zulip-admin@example.com."
 * (`realm.requestExport` says it, after its weekly limit, as the original).
 */
export interface ExportLimits {
  /** Public channels' messages (EXPORT_MAX_MESSAGES; the original's 250000). */
  maxMessages: number;
  /** Bytes of uploaded files (EXPORT_MAX_UPLOAD_MIB; the original's 20 GiB). */
  maxUploadBytes: number;
  /** The address named in the refusal (ZULIP_ADMINISTRATOR). */
  administrator: string;
}

/**
 * Whether the organization holds more than the limits allow: its uploads, as
 * GET /attachments sums them (one ask of the caller's UserActor, which scans
 * the realm's attachment_owner rows), then the messages of its public
 * channels, archived ones included (one ask per public channel, each
 * answering the length of its history): exactly what a public export writes.
 */
export async function exportTooLarge(actors: ActorClient, caller: Principal, limits: ExportLimits): Promise<boolean> {
  const uploads = await actors.ask(userAddress(caller.realm, caller.user_id), { type: 'user.attachments' });
  if (uploads.upload_space_used > limits.maxUploadBytes) return true;
  const directory = await actors.ask(realmAddress(caller.realm), { type: 'realm.channels' });
  const counts = await Promise.all(
    directory
      .filter((c) => !c.invite_only)
      .map((c) => actors.ask(channelAddress(caller.realm, c.channel_id), { type: 'channel.messageCount' })),
  );
  return counts.reduce((sum, n) => sum + n, 0) > limits.maxMessages;
}
