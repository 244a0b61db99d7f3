import type { RealmCommand, StatusCommand } from '@chat/protocol';
import type { ActorContext, Decision } from '@chat/runtime';
import { applyAccountUpdate, decideAccountUpdate, type AccountUpdateEvent } from '../accounts/update.js';
import { applyPresenceEvent, decidePresence, type PresenceEvent, type PresenceRow } from './presence.js';
import type { RealmEvent, RealmState } from '../state.js';
import { applyStatusEvent, decideStatus, type StatusEvent, type StoredStatus } from './status.js';

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

const COMMANDS: ReadonlySet<string> = new Set<StatusCommand['type']>([
  'realm.setStatus',
  'realm.userStatus',
  'realm.statuses',
  'realm.updateAccount',
  'realm.presenceEnabled',
  'realm.reportPresence',
  'realm.presences',
  'realm.userPresence',
]);
const EVENTS: ReadonlySet<string> = new Set<PeopleEvent['type']>([
  'statusSet',
  'presenceEnabledSet',
  'presenceReported',
  'accountUpdated',
]);

export const isStatusCommand = (command: RealmCommand): command is StatusCommand => COMMANDS.has(command.type);
export const isPeopleEvent = (event: RealmEvent): event is PeopleEvent => EVENTS.has(event.type);

export function statusCommand(ctx: ActorContext<RealmState>, command: StatusCommand): Decision<RealmEvent> {
  switch (command.type) {
    case 'realm.updateAccount':
      return decideAccountUpdate(ctx, command);
    case 'realm.reportPresence':
    case 'realm.presences':
    case 'realm.userPresence':
      return decidePresence(ctx, command);
    default:
      return decideStatus(ctx, command);
  }
}

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
