/** Actors are addressed by type and key; the key is unique within its type. */
export type ActorType = 'realm' | 'channel' | 'user' | 'queue';

/** An address of type `T` takes the commands of `T`'s protocol table (`Protocols`). */
export interface ActorAddress<T extends ActorType = ActorType> {
  type: T;
  key: string;
}

/*
 * Every actor key is built and read here, and nowhere else. Realms are keyed
 * by their string id (the subdomain); the rest live inside a realm:
 * `realm:channel_id`, `realm:dm:3,7,11` (a direct-message conversation, its
 * participants sorted), `realm:user_id`, `realm:queue_id`.
 */
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
/** The conversation a key names (a key read from a store row, a move or a user's read state). */
export const conversationOfKey = (key: string): ActorAddress<'channel'> => ({ type: 'channel', key });
export const userAddress = (realm: string, userId: number): ActorAddress<'user'> => ({
  type: 'user',
  key: `${realm}:${userId}`,
});
/** The keys of many users' actors, for a fan-out. */
export const userKeys = (realm: string, userIds: number[]): string[] => userIds.map((id) => userAddress(realm, id).key);
export const queueAddress = (realm: string, queueId: string): ActorAddress<'queue'> => ({
  type: 'queue',
  key: `${realm}:${queueId}`,
});

/** The realm part of a realm-scoped actor key (`realm:...`). */
export const realmOfKey = (key: string) => key.slice(0, key.indexOf(':'));
/** What follows the realm in a realm-scoped key. */
const restOfKey = (key: string) => key.slice(key.indexOf(':') + 1);

/** `realm:10` -> the user a UserActor's key names. */
export const userOfKey = (key: string): number => Number(restOfKey(key));
/** `realm:12` -> the channel a channel's key names (NaN for a direct-message conversation's). */
export const channelOfKey = (key: string): number => Number(restOfKey(key));
/** `realm:queue_id` -> the queue a QueueActor's key names. */
export const queueOfKey = (key: string): string => restOfKey(key);
/** `realm:dm:3,7` -> [3, 7], the participants; undefined for a channel's key. */
export function participantsOfKey(key: string): number[] | undefined {
  const rest = restOfKey(key);
  return rest.startsWith('dm:') ? rest.slice(3).split(',').map(Number) : undefined;
}

export const formatAddress = (a: ActorAddress) => `${a.type}/${a.key}`;

/**
 * Where a message lives: a store row per message naming its conversation's
 * actor key, written by the ChannelActor, so an operation that only has a
 * message id finds the actor to ask. Ids are dense per realm
 * (`actors/realm/src/message-ids.ts`): buckets of 2^16 ids (65,536 messages)
 * keep partitions bounded.
 */
/**
 * The realms that owe calls to outgoing webhook bots: a store row per realm,
 * written by its RealmActor while any call is owed, so the sweep that
 * resumes calls after a restart finds realms nobody has used since.
 */
export const OWING_REALMS = { table: 'owed_webhook_realms', partition: 'realms' } as const;
export const owingRealmKey = (realm: string) => ({ ...OWING_REALMS, sort: realm });

export const messageLocationKey = (realm: string, messageId: number) => ({
  table: 'message_location',
  partition: `${realm}/${Math.floor(messageId / 2 ** 16)}`,
  sort: String(messageId).padStart(16, '0'),
});
