import type { Decision } from '@chat/runtime';
import type { RealmState } from './state.js';

/**
 * Message ids: one sequence per realm, dense like the original's database
 * sequence. Every conversation asks its realm for the next id while it
 * decides a send, so ids grow by one per message across the realm and a send
 * acknowledged before another starts has the smaller id.
 *
 * Only reservations are journaled, a block of ID_BLOCK ids at a time; the ids
 * of a block are handed out from memory (soft changes). An actor put to rest
 * (passivated, or its server stopped gracefully) saved every id it handed out,
 * so it comes back to life where it was. After a crash (or a kill, or a
 * failover) it goes on after its last reservation: it may skip the rest of a
 * block but never hands out an id twice. One send in ID_BLOCK waits for a
 * reservation's write (bench/README.md, "The message id ask").
 */
export const ID_BLOCK = 1000;

export interface MessageIds {
  /** Every id up to this one may have been handed out. */
  reserved: number;
  /** The next id to hand out (a soft change). */
  next: number;
  /** Saved at rest: `next` is exact. A reservation clears it, so a crash after coming back is seen as one. */
  atRest?: boolean;
}

export type MessageIdEvent = { type: 'messageIdsReserved'; through: number } | { type: 'messageIdTaken'; id: number };

const idsOf = (state: RealmState): MessageIds => state.messageIds ?? { reserved: 0, next: 1 };

/** The next message id, above `floor` (the asking conversation's newest id). */
export function decideMessageId(state: RealmState, floor: number): Decision<MessageIdEvent, number> {
  const ids = idsOf(state);
  const id = Math.max(ids.next, floor + 1);
  return {
    events: id > ids.reserved ? [{ type: 'messageIdsReserved', through: id + ID_BLOCK - 1 }] : [],
    soft: [{ type: 'messageIdTaken', id }],
    reply: id,
  };
}

export function applyMessageIdEvent(state: RealmState, event: MessageIdEvent): void {
  const ids = (state.messageIds ??= idsOf(state));
  if (event.type === 'messageIdsReserved') {
    ids.reserved = Math.max(ids.reserved, event.through);
    delete ids.atRest;
  } else ids.next = Math.max(ids.next, event.id + 1);
}

/** Just before the snapshot that puts the realm to rest: every id handed out is in it. */
export function restMessageIds(state: RealmState): void {
  if (state.messageIds) state.messageIds.atRest = true;
}

/**
 * On activation. Back from rest, `next` is exact: go on from it, but journal a
 * reservation before the first id (so that a crash from here on is told apart).
 * Otherwise ids handed out after the last snapshot are not known, so go on
 * after the reservation.
 */
export function resumeMessageIds(state: RealmState): void {
  const ids = state.messageIds;
  if (!ids) return;
  if (ids.atRest) ids.reserved = ids.next - 1;
  else ids.next = ids.reserved + 1;
  delete ids.atRest;
}
