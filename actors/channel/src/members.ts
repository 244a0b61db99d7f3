import { realmOfKey, userAddress, type ActorAddress, type Command } from '@chat/protocol';

/** `realm:dm:3,7` -> [3, 7]; undefined for a channel key. */
export function dmParticipants(key: string): number[] | undefined {
  const match = /^[^:]+:dm:([\d,]+)$/.exec(key);
  return match ? match[1]!.split(',').map(Number) : undefined;
}

/** One tell per user actor. */
export function userTells(key: string, userIds: number[], body: Command): Array<{ to: ActorAddress; body: Command }> {
  const realm = realmOfKey(key);
  return userIds.map((id) => ({ to: userAddress(realm, id), body }));
}
