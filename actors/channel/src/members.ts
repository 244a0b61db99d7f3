import { realmOfKey, type CommandTo } from '@chat/protocol';
import type { Fanout } from '@chat/runtime';

/** `realm:dm:3,7` -> [3, 7]; undefined for a channel key. */
export function dmParticipants(key: string): number[] | undefined {
  const match = /^[^:]+:dm:([\d,]+)$/.exec(key);
  return match ? match[1]!.split(',').map(Number) : undefined;
}

/** One body for many users' actors: a single fan-out, so an owed message is recorded once, not per user. */
export function toUsers(key: string, userIds: number[], body: CommandTo<'user'>): Fanout {
  const realm = realmOfKey(key);
  return { type: 'user', keys: userIds.map((id) => `${realm}:${id}`), body };
}
