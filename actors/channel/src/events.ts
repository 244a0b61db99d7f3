import { realmOfKey, type Command, type QueueEvent, type StoredMessage } from '@chat/protocol';
import type { Decision } from '@chat/runtime';
import { dmParticipants } from './members.js';
import type { ChannelEvent, ChannelState } from './state.js';

/**
 * Who hears about a change in this conversation: a channel's subscribers, or
 * a direct message's participants. (Public channels' non-subscribers with an
 * `all_public_streams` queue are not reached yet.)
 */
export function audience(state: ChannelState, key: string): number[] {
  return state.kind === 'channel' ? state.members : (dmParticipants(key) ?? []);
}

/** One fan-out of events to users' actors, which pass them to their queues. */
export function fanout(
  key: string,
  userIds: number[],
  events: QueueEvent[],
): NonNullable<Decision<ChannelEvent>['fanouts']>[number] {
  const realm = realmOfKey(key);
  const body: Command = { type: 'user.deliver', events };
  return { type: 'user', keys: userIds.map((id) => `${realm}:${id}`), body };
}

/** A message as its event carries it; each recipient's UserActor fills in the flags. */
export function messageForEvent(state: ChannelState, key: string, message: StoredMessage) {
  return {
    ...message,
    channel_id: state.channel?.stream_id ?? null,
    channel_name: state.channel?.name ?? null,
    dm_user_ids: state.kind === 'channel' ? [] : (dmParticipants(key) ?? []),
    flags: [] as string[],
  };
}
