import {
  ChatError,
  isAdministrator,
  type Playground,
  type PlaygroundProtocol,
  notAdministrator,
  realmPlaygroundsEvent,
} from '@chat/protocol';
import { toEveryone } from './broadcast.js';
import type { RealmHandlers, RealmState } from './state.js';

/** A playground added (`playground`) or removed (`removed`). */
export interface PlaygroundEvent {
  type: 'playgroundChanged';
  playground?: Playground;
  removed?: number;
}

const bad = (msg: string) => new ChatError('BAD_REQUEST', msg);

const listOf = (state: RealmState): Playground[] => Object.values(state.playgrounds ?? {}).sort((a, b) => a.id - b.id);

function requireAdmin(state: RealmState, actorId: number): void {
  const actor = state.accounts[actorId];
  if (!actor?.isActive || !isAdministrator(actor)) {
    throw notAdministrator();
  }
}

/** Every user hears the whole list after a change, as the original sends it. */
function changed(state: RealmState, event: PlaygroundEvent) {
  const after: RealmState = { ...state, playgrounds: { ...state.playgrounds } };
  applyPlaygroundEvent(after, event);
  return toEveryone(state, [realmPlaygroundsEvent(listOf(after))]);
}

export const playgroundHandlers: RealmHandlers<PlaygroundProtocol> = {
  'realm.playgrounds': ({ state }) => ({ reply: listOf(state) }),
  'realm.addPlayground': ({ state }, cmd) => {
    requireAdmin(state, cmd.actor_id);
    const { name, pygments_language } = cmd.playground;
    if (listOf(state).some((p) => p.name === name && p.pygments_language === pygments_language)) {
      throw bad('Realm playground with this Realm, Pygments language and Name already exists.');
    }
    const id = Math.max(0, ...listOf(state).map((p) => p.id)) + 1;
    const event: PlaygroundEvent = { type: 'playgroundChanged', playground: { id, ...cmd.playground } };
    return { events: [event], fanouts: [changed(state, event)], reply: { id } };
  },
  'realm.removePlayground': ({ state }, cmd) => {
    requireAdmin(state, cmd.actor_id);
    if (!state.playgrounds?.[cmd.playground_id]) throw bad('Invalid playground');
    const event: PlaygroundEvent = { type: 'playgroundChanged', removed: cmd.playground_id };
    return { events: [event], fanouts: [changed(state, event)], reply: null };
  },
};

export function applyPlaygroundEvent(state: RealmState, event: PlaygroundEvent): void {
  const playgrounds = (state.playgrounds ??= {});
  if (event.playground) playgrounds[event.playground.id] = event.playground;
  if (event.removed !== undefined) delete playgrounds[event.removed];
}
