import { maySeePublicChannels, type RealmCommand, userKeys } from '@chat/protocol';
import type { Decision } from '@chat/runtime';
import type { RealmState } from './state.js';

/**
 * Who has at least one `all_public_streams` event queue, as each user's
 * UserActor tells it (`realm.publicListener`): the realm relays the message
 * events of public channels to them (`realm.publicMessage`). `seq` orders a
 * user's changes, since an owed message may be sent again after a newer one.
 */
export type PublicListeners = Record<number, { listening: boolean; seq: number }>;

export type PublicListenerEvent = { type: 'publicListenerSet'; userId: number; listening: boolean; seq: number };

type ListenerCommand = Extract<RealmCommand, { type: 'realm.publicListener' }>;
type MessageCommand = Extract<RealmCommand, { type: 'realm.publicMessage' }>;

export function decidePublicListener(state: RealmState, command: ListenerCommand): Decision<PublicListenerEvent, null> {
  const known = state.publicListeners?.[command.user_id];
  // A stale repeat loses; at an equal seq "not listening" wins (a UserActor repairing a stale entry).
  const newer =
    !known || command.seq > known.seq || (command.seq === known.seq && known.listening && !command.listening);
  if (!newer) return { reply: null };
  const { user_id: userId, listening, seq } = command;
  return { events: [{ type: 'publicListenerSet', userId, listening, seq }], reply: null };
}

export function applyPublicListener(state: RealmState, event: PublicListenerEvent): void {
  (state.publicListeners ??= {})[event.userId] = { listening: event.listening, seq: event.seq };
}

/** The users listening now (active, and still allowed to read public channels). */
export function listeners(state: RealmState): number[] {
  return Object.entries(state.publicListeners ?? {})
    .filter(([id, l]) => l.listening && isReader(state, Number(id)))
    .map(([id]) => Number(id));
}

function isReader(state: RealmState, userId: number): boolean {
  const account = state.accounts[userId];
  return account !== undefined && account.isActive && maySeePublicChannels(account);
}

/**
 * A public channel's message events for the listeners who did not hear them
 * directly (`except`). Nothing is sent when nobody listens; otherwise one
 * fan-out to those users only, whose actors pass the events to their
 * all-public queues alone.
 */
export function relayPublicMessage(state: RealmState, command: MessageCommand): Decision<PublicListenerEvent, null> {
  const except = new Set(command.except);
  const to = listeners(state).filter((id) => !except.has(id));
  if (to.length === 0) return { reply: null };
  const body = { type: 'user.deliverPublic' as const, events: command.events };
  return { fanouts: [{ type: 'user', keys: userKeys(state.stringId, to), body }], reply: null };
}
