import { maySeeAllChannels, maySeePublicChannels, type QueueEvent, type RealmCommand, userKeys } from '@chat/protocol';
import type { Decision, Fanout } from '@chat/runtime';
import type { Account, RealmEvent, RealmState } from './state.js';
import { knowerOf } from './channel-knowledge.js';

/**
 * Events every active account of the organization hears (user groups,
 * folders, statuses, new accounts): one fan-out to their UserActors, which
 * pass them to their queues. `except` leaves out users who must not hear.
 */
export function toEveryone(state: RealmState, events: QueueEvent[], except: number[] = []): Fanout {
  return toAccounts(state, events, (a) => !except.includes(a.id));
}

function toAccounts(state: RealmState, events: QueueEvent[], who: (a: Account) => boolean): Fanout {
  const ids = Object.values(state.accounts)
    .filter((a) => a.isActive && who(a))
    .map((a) => a.id);
  const keys = userKeys(state.stringId, ids);
  return { type: 'user', keys, body: { type: 'user.deliver', events } };
}

/** Events for these users, active ones only. */
export function toUsers(state: RealmState, ids: Iterable<number>, events: QueueEvent[]): Fanout {
  const wanted = new Set(ids);
  return toAccounts(state, events, (a) => wanted.has(a.id));
}

/** A channel's events for those who see the channel without being subscribed (`realm.broadcast`). */
export function broadcast(
  state: RealmState,
  command: Extract<RealmCommand, { type: 'realm.broadcast' }>,
): Decision<RealmEvent, null> {
  const except = new Set(command.except);
  const entry = command.channel_id === undefined ? undefined : state.channels[command.channel_id];
  // A private channel's: administrators, and who knows of it through groups.
  const throughGroups = entry === undefined ? () => false : knowerOf(state, entry);
  const sees =
    command.to === 'members' ? maySeePublicChannels : (a: Account) => maySeeAllChannels(a) || throughGroups(a);
  const reaches = (a: Account) => !except.has(a.id) && sees(a);
  return { fanouts: [toAccounts(state, command.events, reaches)] };
}
