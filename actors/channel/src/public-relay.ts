import { realmAddress, realmOfKey, type QueueEvent } from '@chat/protocol';
import type { Tell } from '@chat/runtime';
import type { ChannelState } from './state.js';

/**
 * A public channel's new message also goes to the users with an
 * `all_public_streams` queue who did not receive it (`recipients` heard it
 * directly, so nobody hears it twice). Only the RealmActor knows who they
 * are; it sends nothing on when nobody listens. As in the original, only
 * the `message` event travels this way: edits, deletions and reactions go to
 * the message's recipients alone. Web-public channels are public too.
 */
export function toPublicListeners(
  state: ChannelState,
  key: string,
  events: QueueEvent[],
  recipients: number[],
): Tell[] {
  if (state.kind !== 'channel' || state.channel!.invite_only) return [];
  return [{ to: realmAddress(realmOfKey(key)), body: { type: 'realm.publicMessage', events, except: recipients } }];
}
