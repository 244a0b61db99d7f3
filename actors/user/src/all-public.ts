import { isMessageEvent, queueAddress, realmAddress, realmOfKey, type QueueEvent, userOfKey } from '@chat/protocol';
import type { Decision, Tell } from '@chat/runtime';
import type { UserEvent, UserState } from './state.js';

/**
 * The user's `all_public_streams` queues. The RealmActor relays public
 * channels' messages to users who have one; this actor tells it when the
 * first such queue comes and the last one goes, each change numbered
 * (`publicSeq`) so that a repeated older message cannot undo a newer one.
 */

type Tells = Tell[];

function listenerTell(key: string, listening: boolean, seq: number): Tell {
  const body = { type: 'realm.publicListener' as const, user_id: userOfKey(key), listening, seq };
  return { to: realmAddress(realmOfKey(key)), body };
}

/** The all-public queues once `event` is applied. */
function publicQueuesAfter(state: UserState, event: UserEvent): string[] {
  const queues = state.publicQueues ?? [];
  if (event.type !== 'queueAdded' && event.type !== 'queueRemoved') return queues;
  const others = queues.filter((q) => q !== event.queueId);
  return event.type === 'queueAdded' && event.allPublic ? [...others, event.queueId] : others;
}

/** Whether the user starts or stops listening. */
const changes = (state: UserState, after: string[]) => (state.publicQueues ?? []).length > 0 !== after.length > 0;

/** What the realm must hear when a queue comes or goes: nothing unless the user starts or stops listening. */
export function listenerTells(key: string, state: UserState, event: UserEvent): Tells {
  const after = publicQueuesAfter(state, event);
  return changes(state, after) ? [listenerTell(key, after.length > 0, (state.publicSeq ?? 0) + 1)] : [];
}

/**
 * Adds a queue. For an all-public one the reply carries the user's change
 * number, so that the edge can tell the realm itself before registering
 * answers: the owed tell alone might arrive after the client's first message.
 */
export function decideAddQueue(
  key: string,
  state: UserState,
  queueId: string,
  allPublic: boolean,
): Decision<UserEvent, { public_seq: number } | null> {
  const added: UserEvent = { type: 'queueAdded', queueId, ...(allPublic ? { allPublic } : {}) };
  const tells = listenerTells(key, state, added);
  const seq = (state.publicSeq ?? 0) + tells.length;
  return { events: [added], tells, reply: allPublic ? { public_seq: seq } : null };
}

/** Keeps the list of all-public queues (and the change count) in step with the user's queues. */
export function applyPublicQueues(state: UserState, event: UserEvent): void {
  const after = publicQueuesAfter(state, event);
  if (changes(state, after)) state.publicSeq = (state.publicSeq ?? 0) + 1;
  if (after.length > 0 || state.publicQueues) state.publicQueues = after;
}

/**
 * A public channel's message events the user did not receive as a
 * subscriber: only the all-public queues get them, with no flags (the
 * original gives such queues the message without any). A realm that still
 * counts the user as listening after the last such queue went is told again.
 */
export function deliverPublic(key: string, state: UserState, events: QueueEvent[]): Decision<UserEvent, null> {
  const queues = state.publicQueues ?? [];
  if (queues.length === 0) return { tells: [listenerTell(key, false, state.publicSeq ?? 0)] };
  const unflagged = events.map((e) => (isMessageEvent(e) ? { ...e, message: { ...e.message, flags: [] } } : e));
  const body = { type: 'queue.push' as const, events: unflagged };
  const realm = realmOfKey(key);
  return { tells: queues.map((queueId) => ({ to: queueAddress(realm, queueId), body })) };
}
