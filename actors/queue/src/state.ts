import type { NumberedEvent, QueueSpec } from '@chat/protocol';

export interface QueueState {
  status: 'none' | 'live' | 'gone';
  spec: QueueSpec | null;
  /** Events not yet acknowledged, oldest first. */
  events: NumberedEvent[];
  /** The id the next event gets; ids start at 0. */
  nextId: number;
  /** Every id up to this one was acknowledged and dropped. */
  acknowledged: number;
  /** Message events up to these ids, by conversation key, are in the client's snapshot. */
  covered?: Record<string, number>;
  /** Why a gone queue went, for logs and errors. */
  reason?: 'idle' | 'full' | 'deleted';
}

export type QueueEventRecord =
  | { type: 'registered'; spec: QueueSpec }
  | { type: 'pushed'; events: NumberedEvent[] }
  | { type: 'acknowledged'; through: number }
  | { type: 'covered'; through: Record<string, number> }
  | { type: 'collected'; reason: 'idle' | 'full' | 'deleted' };

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
      break;
    case 'acknowledged': {
      const keep = state.events.findIndex((e) => e.id > event.through);
      state.events = keep === -1 ? [] : state.events.slice(keep);
      state.acknowledged = Math.max(state.acknowledged, event.through);
      break;
    }
    case 'covered':
      state.covered = event.through;
      break;
    case 'collected':
      // Only the fact remains: a later fetch is answered BAD_EVENT_QUEUE_ID.
      state.status = 'gone';
      state.reason = event.reason;
      state.events = [];
      break;
  }
}
