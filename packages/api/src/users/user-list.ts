import { formatAddress, type UserProfile } from '@chat/protocol';
import type { CallerContext } from '../context.js';

/** A realm's user list as this edge last read it, and what was made of it. */
export interface UserList {
  version: string;
  users: UserProfile[];
  active: UserProfile[];
  /** Position of each active user in `active`. */
  at: Map<number, number>;
  /** The register's renderings of the list (events/register/realm-users.ts), by what they depend on. */
  rendered: Map<string, unknown>;
}

/**
 * The last user list of each realm this edge read, by the realm's version
 * of it: a reader asks the realm with that version and, when nothing
 * changed, gets no list back, so ten thousand users are neither copied
 * across the transport nor rendered and written as JSON again. The realm is
 * still asked, so the read's journal position is noted as before.
 */
const byRealm = new Map<string, UserList>();

/** Each request's one read: a register's guest access and its user list must come from the same list. */
const perRequest = new WeakMap<CallerContext, Promise<UserList>>();

/**
 * The realm's users (every one, deactivated too), from this edge's copy when the realm says it is current;
 * read once per request (for a restricted guest's register, a deactivation between two reads would count
 * him as accessible from the first and inactive from the second, and list him where no remove finds him).
 */
export function userList(caller: CallerContext): Promise<UserList> {
  let list = perRequest.get(caller);
  if (!list) {
    list = readUserList(caller);
    perRequest.set(caller, list);
  }
  return list;
}

async function readUserList(caller: CallerContext): Promise<UserList> {
  const key = formatAddress(caller.realm);
  const known = byRealm.get(key);
  const reply = await caller.actors.ask(caller.realm, {
    type: 'realm.usersVersioned',
    ...(known ? { unless: known.version } : {}),
  });
  if (known && !reply.users) return known;
  const users = reply.users ?? [];
  const active = users.filter((u) => u.is_active);
  const list = {
    version: reply.version,
    users,
    active,
    at: new Map(active.map((u, i) => [u.user_id, i])),
    rendered: new Map(),
  };
  byRealm.set(key, list);
  return list;
}
