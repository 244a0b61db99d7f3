import { createHash } from 'node:crypto';
import { ChatError, isAdministrator, realmLinkifiers, type Linkifier, type LinkifierProtocol } from '@chat/protocol';
import { toEveryone } from './broadcast.js';
import type { RealmHandlers, RealmState } from './state.js';

/** The realm's linkifiers after a change, in their order, and the next id to give. */
export interface LinkifiersSetEvent {
  type: 'linkifiersSet';
  linkifiers: Linkifier[];
  nextId: number;
}

const bad = (msg: string) => new ChatError('BAD_REQUEST', msg);
const NOT_FOUND = 'Linkifier not found.';

function requireAdmin(state: RealmState, actorId: number): void {
  const actor = state.accounts[actorId];
  if (!actor?.isActive || !isAdministrator(actor)) {
    throw new ChatError('UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');
  }
}

/** Two linkifiers of a realm may not share a pattern (the original's unique constraint, in its words). */
function checkUnique(list: Linkifier[], pattern: string, except?: number): void {
  if (list.some((l) => l.pattern === pattern && l.id !== except)) {
    throw bad('Realm filter with this Realm and Pattern already exists.');
  }
}

/** Stores the new list and tells everyone, as the original sends the whole list. */
function set(state: RealmState, linkifiers: Linkifier[], nextId = state.nextLinkifierId ?? 1) {
  const event: LinkifiersSetEvent = { type: 'linkifiersSet', linkifiers, nextId };
  return { events: [event], fanouts: [toEveryone(state, [realmLinkifiers(linkifiers)])] };
}

export const linkifierHandlers: RealmHandlers<LinkifierProtocol> = {
  'realm.linkifiers': ({ state }) => ({ reply: state.linkifiers ?? [] }),
  'realm.addLinkifier': ({ state }, cmd) => {
    requireAdmin(state, cmd.actor_id);
    const list = state.linkifiers ?? [];
    checkUnique(list, cmd.pattern);
    const id = state.nextLinkifierId ?? 1;
    return {
      ...set(state, [...list, { id, pattern: cmd.pattern, url_template: cmd.url_template }], id + 1),
      reply: { id },
    };
  },
  'realm.updateLinkifier': ({ state }, cmd) => {
    requireAdmin(state, cmd.actor_id);
    const list = state.linkifiers ?? [];
    if (!list.some((l) => l.id === cmd.id)) throw bad(NOT_FOUND);
    checkUnique(list, cmd.pattern, cmd.id);
    const changed = { id: cmd.id, pattern: cmd.pattern, url_template: cmd.url_template };
    return {
      ...set(
        state,
        list.map((l) => (l.id === cmd.id ? changed : l)),
      ),
      reply: null,
    };
  },
  'realm.removeLinkifier': ({ state }, cmd) => {
    requireAdmin(state, cmd.actor_id);
    const list = state.linkifiers ?? [];
    if (!list.some((l) => l.id === cmd.id)) throw bad(NOT_FOUND);
    return {
      ...set(
        state,
        list.filter((l) => l.id !== cmd.id),
      ),
      reply: null,
    };
  },
  'realm.reorderLinkifiers': ({ state }, cmd) => {
    requireAdmin(state, cmd.actor_id);
    const wanted = new Set(cmd.ids);
    if (wanted.size < cmd.ids.length) throw bad('The ordered list must not contain duplicated linkifiers');
    const list = state.linkifiers ?? [];
    if (list.length !== wanted.size || list.some((l) => !wanted.has(l.id))) {
      throw bad('The ordered list must enumerate all existing linkifiers exactly once');
    }
    if (list.length === 0) return { reply: null };
    const byId = new Map(list.map((l) => [l.id, l]));
    return {
      ...set(
        state,
        cmd.ids.map((id) => byId.get(id)!),
      ),
      reply: null,
    };
  },
};

export function applyLinkifiersSet(state: RealmState, event: LinkifiersSetEvent): void {
  state.linkifiers = event.linkifiers;
  state.nextLinkifierId = event.nextId;
  // A digest of the list, so an edge's copy is known current by content, whichever server it came from.
  state.linkifiersVersion = createHash('sha256')
    .update(JSON.stringify(event.linkifiers))
    .digest('base64url')
    .slice(0, 16);
}
