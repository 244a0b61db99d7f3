/** Actors are addressed by type and key; the key is unique within its type. */
export type ActorType = 'realm' | 'channel' | 'user' | 'queue';

/** An address of type `T` takes the commands of `T`'s protocol table (`Protocols`). */
export interface ActorAddress<T extends ActorType = ActorType> {
  type: T;
  key: string;
}

/** Realms are keyed by their string id (the subdomain); the rest live inside a realm. */
export const realmAddress = (realm: string): ActorAddress<'realm'> => ({ type: 'realm', key: realm });
export const channelAddress = (realm: string, channelId: number): ActorAddress<'channel'> => ({
  type: 'channel',
  key: `${realm}:${channelId}`,
});
/** A direct-message conversation is a ChannelActor keyed by its participants, the sender included. */
export const conversationAddress = (realm: string, userIds: number[]): ActorAddress<'channel'> => ({
  type: 'channel',
  key: `${realm}:dm:${[...new Set(userIds)].sort((a, b) => a - b).join(',')}`,
});
export const userAddress = (realm: string, userId: number): ActorAddress<'user'> => ({
  type: 'user',
  key: `${realm}:${userId}`,
});
export const queueAddress = (realm: string, queueId: string): ActorAddress<'queue'> => ({
  type: 'queue',
  key: `${realm}:${queueId}`,
});

/** The realm part of a realm-scoped actor key (`realm:...`). */
export const realmOfKey = (key: string) => key.slice(0, key.indexOf(':'));

export const formatAddress = (a: ActorAddress) => `${a.type}/${a.key}`;

/**
 * Where a message lives: a store row per message naming its conversation's
 * actor key, written by the ChannelActor, so an operation that only has a
 * message id finds the actor to ask. Ids are dense per realm
 * (`actors/realm/src/message-ids.ts`): buckets of 2^16 ids (65,536 messages)
 * keep partitions bounded.
 */
export const messageLocationKey = (realm: string, messageId: number) => ({
  table: 'message_location',
  partition: `${realm}/${Math.floor(messageId / 2 ** 16)}`,
  sort: String(messageId).padStart(16, '0'),
});
