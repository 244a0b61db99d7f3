import { ChatError, maySeePublicChannels, realmAddress, userAddress, type Principal } from '@chat/protocol';
import type { ActorClient } from '@chat/runtime';

/**
 * `all_public_streams` asks for every public channel's messages, which only
 * users who may read public channels get: the original refuses guests so.
 */
export function checkAllPublic(principal: Principal, wanted: boolean | undefined): void {
  if (wanted && !maySeePublicChannels(principal)) {
    throw new ChatError('BAD_REQUEST', 'User not authorized for this query');
  }
}

/**
 * Adds the queue to the user's list. An all-public queue must hear the
 * public channels' messages sent once register answers, so the realm hears
 * that the user listens before then; the UserActor's own (owed) tell of the
 * same change, numbered alike, then changes nothing.
 */
export async function addQueue(actors: ActorClient, principal: Principal, queueId: string, allPublic: boolean) {
  const me = userAddress(principal.realm, principal.user_id);
  const added = await actors.ask(me, {
    type: 'user.addQueue',
    queue_id: queueId,
    all_public_streams: allPublic,
  });
  if (!added) return;
  const listening = { user_id: principal.user_id, listening: true, seq: added.public_seq };
  await actors.ask(realmAddress(principal.realm), { type: 'realm.publicListener', ...listening });
}
