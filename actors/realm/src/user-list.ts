import { randomUUID } from 'node:crypto';
import type { UserProfile } from '@chat/protocol';
import { toProfile } from './profile.js';
import type { RealmEvent, RealmState } from './state.js';

/**
 * Every account as `realm.listUsers` shows it, built once per state and
 * forgotten when an event may change it (`forgetUserList`), so a register
 * on a large realm does not rebuild ten thousand profiles. The version
 * names one list: a fresh one after any change, and after a restart.
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

/**
 * Events that never touch what `toProfile` reads: the frequent ones of a
 * chatting realm (a message id per send, presence pings, statuses, public
 * listeners, sessions, owed webhooks). Every other event forgets the list,
 * so an event added later is safe until it is listed here.
 */
const KEEP: ReadonlySet<RealmEvent['type']> = new Set<RealmEvent['type']>([
  'messageIdsReserved',
  'messageIdTaken',
  'presenceReported',
  'statusSet',
  'publicListenerSet',
  'sessionStarted',
  'sessionEnded',
  'webhooksOwed',
  'webhookDone',
  'exportRequested',
  'exportDone',
]);

export function forgetUserList(state: RealmState, event: RealmEvent): void {
  if (!KEEP.has(event.type)) lists.delete(state);
}
