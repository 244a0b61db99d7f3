import { randomUUID } from 'node:crypto';
import type { UserProfile } from '@chat/protocol';
import { toProfile } from './profile.js';
import type { RealmState } from './state.js';

/**
 * Every account as `realm.listUsers` shows it, built once per state and
 * forgotten on every event the realm applies (`forgetUserList`), so a
 * register on a large realm does not rebuild ten thousand profiles. The
 * version names one list: a fresh one after any change, and after a restart.
 */
const lists = new WeakMap<RealmState, { version: string; users: UserProfile[] }>();

export function listUsers(state: RealmState): { version: string; users: UserProfile[] } {
  let list = lists.get(state);
  if (!list) {
    list = { version: randomUUID(), users: Object.values(state.accounts).map(toProfile) };
    lists.set(state, list);
  }
  return list;
}

export function forgetUserList(state: RealmState): void {
  lists.delete(state);
}
