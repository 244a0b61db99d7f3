import type { NumberedEvent, QueueSpec } from '@chat/protocol';
import { afterAccess } from './access.js';

/** The change an event comes from: an actor (`formatAddress`) and the journal position of its record. */
export interface Origin {
  actor: string;
  position: number;
}

/** What the client's snapshot holds: by event type, the position it read each actor at. */
export type Cover = Record<string, Record<string, number>>;

export interface QueueState {
  status: 'none' | 'live' | 'gone';
  spec: QueueSpec | null;
  /** Events not yet acknowledged, oldest first. */
  events: NumberedEvent[];
  /** The id the next event gets; ids start at 0. */
  nextId: number;
  /** Every id up to this one was acknowledged and dropped. */
  acknowledged: number;
  /** Until the snapshot's cover comes: the change each held event came from. */
  origins?: Record<number, Origin>;
  cover?: Cover;
  /** A restricted guest's queue with `realm_user`: whom its client accesses (see access.ts). */
  accessible?: number[];
  /** Why a gone queue went, for logs and errors; `lost`: its state was not saved at rest (a crash). */
  reason?: 'idle' | 'full' | 'deleted' | 'lost';
  /**
   * Saved at rest (`atRest`: a graceful stop or hand-off): the snapshot holds
   * every change, so the queue goes on. The first decision after it journals
   * `resumed`, which clears this, so a crash from then on is told apart.
   */
  rested?: true;
}

export type QueueEventRecord =
  | { type: 'registered'; spec: QueueSpec }
  | { type: 'pushed'; events: NumberedEvent[]; origin?: Origin }
  | { type: 'acknowledged'; through: number }
  | { type: 'covered'; cover: Cover; dropped: number[]; accessible?: number[] }
  | { type: 'collected'; reason: 'idle' | 'full' | 'deleted' }
  | { type: 'resumed' };

export const initialState = (): QueueState => ({ status: 'none', spec: null, events: [], nextId: 0, acknowledged: -1 });

export function applyEvent(state: QueueState, event: QueueEventRecord): void {
  switch (event.type) {
    case 'registered':
      state.status = 'live';
      state.spec = event.spec;
      break;
    case 'pushed':
      state.events.push(...event.events);
      state.nextId = event.events.at(-1)!.id + 1;
      // Only pushes before the snapshot's cover carry one (see `append`).
      if (state.accessible) state.accessible = afterAccess(state.accessible, event.events);
      if (event.origin !== undefined) {
        state.origins ??= {};
        for (const e of event.events) state.origins[e.id] = event.origin;
      }
      break;
    case 'acknowledged': {
      const keep = state.events.findIndex((e) => e.id > event.through);
      state.events = keep === -1 ? [] : state.events.slice(keep);
      state.acknowledged = Math.max(state.acknowledged, event.through);
      break;
    }
    case 'covered': {
      // Records of queues from before covers had types (`through` by conversation) mean nothing now.
      if (!event.cover) break;
      const dropped = new Set(event.dropped);
      state.events = state.events.filter((e) => !dropped.has(e.id));
      state.cover = event.cover;
      delete state.origins;
      if (event.accessible) state.accessible = event.accessible;
      break;
    }
    case 'resumed':
      delete state.rested;
      break;
    case 'collected':
      // Only the fact remains: a later fetch is answered BAD_EVENT_QUEUE_ID.
      state.status = 'gone';
      state.reason = event.reason;
      state.events = [];
      delete state.origins;
      break;
  }
}

/** Just before the snapshot that takes the queue out of memory: it holds every event, so the queue may go on. */
export function restQueue(state: QueueState): void {
  if (state.status === 'live') state.rested = true;
}

/**
 * On activation, a live queue that was not saved at rest lost its events and
 * acknowledgements (they are kept in memory only): it is collected, so its
 * next poll answers BAD_EVENT_QUEUE_ID. True when that happened.
 */
export function loseUnrested(state: QueueState): boolean {
  if (state.status !== 'live' || state.rested) return false;
  state.status = 'gone';
  state.reason = 'lost';
  state.events = [];
  delete state.origins;
  return true;
}
