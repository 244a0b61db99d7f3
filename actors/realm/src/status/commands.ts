import type { StatusProtocol } from '@chat/protocol';
import { applyAccountUpdate, decideAccountUpdate, type AccountUpdateEvent } from '../accounts/update.js';
import { applyPresenceEvent, presenceHandlers, type PresenceEvent, type PresenceRow } from './presence.js';
import type { RealmEvent, RealmHandlers, RealmState } from '../state.js';
import {
  applyStatusEvent,
  statusHandlers as ownStatusHandlers,
  type StatusEvent,
  type StoredStatus,
} from './status.js';

/**
 * What the realm keeps of each user besides the account: statuses and
 * presence (every user's at once is what clients read), and the users who
 * turned presence off. All absent in snapshots older than these features.
 */
export interface PeopleState {
  statuses?: Record<number, StoredStatus>;
  /** Users whose `presence_enabled` setting is off. */
  invisible?: number[];
  presence?: Record<number, PresenceRow>;
  lastPresenceId?: number;
}

export type PeopleEvent = StatusEvent | PresenceEvent | AccountUpdateEvent;

const EVENTS: ReadonlySet<string> = new Set<PeopleEvent['type']>([
  'statusSet',
  'presenceEnabledSet',
  'presenceReported',
  'accountUpdated',
]);

export const isPeopleEvent = (event: RealmEvent): event is PeopleEvent => EVENTS.has(event.type);

/** Statuses, presence and account details: one table of handlers from the three modules. */
export const statusHandlers: RealmHandlers<StatusProtocol> = {
  ...ownStatusHandlers,
  ...presenceHandlers,
  'realm.updateAccount': decideAccountUpdate,
};

export function applyPeopleEvent(state: RealmState, event: PeopleEvent): void {
  switch (event.type) {
    case 'accountUpdated':
      return applyAccountUpdate(state, event);
    case 'presenceReported':
      return applyPresenceEvent(state, event);
    default:
      return applyStatusEvent(state, event);
  }
}
