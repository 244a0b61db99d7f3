import type { Command, QueueEvent } from '@chat/protocol';
import type { Decision } from '@chat/runtime';
import type { RealmEvent, RealmState } from './state.js';

type Fanout = NonNullable<Decision<RealmEvent>['fanouts']>[number];

/**
 * Events every active account of the organization hears (user groups,
 * folders, statuses, new accounts): one fan-out to their UserActors, which
 * pass them to their queues. `except` leaves out users who must not hear.
 */
export function toEveryone(state: RealmState, events: QueueEvent[], except: number[] = []): Fanout {
  const keys = Object.values(state.accounts)
    .filter((a) => a.isActive && !except.includes(a.id))
    .map((a) => `${state.stringId}:${a.id}`);
  const body: Command = { type: 'user.deliver', events };
  return { type: 'user', keys, body };
}
