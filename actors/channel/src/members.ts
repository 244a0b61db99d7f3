import { realmOfKey, userKeys, type CommandTo } from '@chat/protocol';
import type { Fanout } from '@chat/runtime';

/** One body for many users' actors: a single fan-out, so an owed message is recorded once, not per user. */
export function toUsers(key: string, userIds: number[], body: CommandTo<'user'>): Fanout {
  return { type: 'user', keys: userKeys(realmOfKey(key), userIds), body };
}
