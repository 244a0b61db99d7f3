/** Actors are addressed by type and key; the key is unique within its type. */
export type ActorType = 'realm' | 'channel' | 'user' | 'queue';

export interface ActorAddress {
  type: ActorType;
  key: string;
}

/** Realms are keyed by their string id (the subdomain); the rest live inside a realm. */
export const realmAddress = (realm: string): ActorAddress => ({ type: 'realm', key: realm });
export const channelAddress = (realm: string, channelId: number): ActorAddress => ({
  type: 'channel',
  key: `${realm}:${channelId}`,
});
export const userAddress = (realm: string, userId: number): ActorAddress => ({
  type: 'user',
  key: `${realm}:${userId}`,
});
export const queueAddress = (queueId: string): ActorAddress => ({ type: 'queue', key: queueId });

export const formatAddress = (a: ActorAddress) => `${a.type}/${a.key}`;
