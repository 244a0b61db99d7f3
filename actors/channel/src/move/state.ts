import type { ChannelMove } from '@chat/protocol';
import type { Decision } from '@chat/runtime';

export type Fanout = NonNullable<Decision<unknown>['fanouts']>[number];

/** A move out of this channel that the target may not hold yet. */
export interface PendingMove {
  move: ChannelMove;
  /** Read-state updates and client events, sent once the target holds the messages. */
  fanouts: Fanout[];
  /** When the move began (ms). */
  at: number;
}

export type MoveEvent =
  | { type: 'moveStarted'; pending: PendingMove }
  /** `done`: the target holds the messages, so they leave; otherwise the move is dropped and they stay. */
  | { type: 'moveEnded'; id: string; done: boolean };

interface WithMoves {
  messages: Array<{ id: number }>;
  moving?: Record<string, PendingMove>;
}

export function applyMoveEvent(state: WithMoves, event: MoveEvent): void {
  if (event.type === 'moveStarted') {
    state.moving = { ...state.moving, [event.pending.move.id]: event.pending };
    return;
  }
  const pending = state.moving?.[event.id];
  if (!pending) return;
  delete state.moving![event.id];
  if (!event.done) return;
  // The location rows already name the target, which wrote them on import: nothing to delete.
  const gone = new Set(pending.move.messages.map((m) => m.id));
  state.messages = state.messages.filter((m) => !gone.has(m.id));
}
