import { RawJson } from '@chat/edge';
import { formatAddress, type UserProfile } from '@chat/protocol';
import type { CallerContext } from '../../context.js';
import { renderUser } from '../../users/json.js';

interface Cached {
  version: string;
  users: UserProfile[];
  rendered: Map<boolean, { active: RawJson; nonActive: RawJson }>;
}

/**
 * The last user list of each realm this edge read, by the realm's version
 * of it: a register asks the realm with that version and, when nothing
 * changed, gets no list back, so ten thousand users are neither copied
 * across the transport nor rendered and written as JSON again. The realm is still asked, so the
 * read's journal position is noted as before.
 */
const byRealm = new Map<string, Cached>();

export async function realmUsers(caller: CallerContext, clientGravatar: boolean) {
  const key = formatAddress(caller.realm);
  const known = byRealm.get(key);
  const reply = await caller.actors.ask(caller.realm, {
    type: 'realm.usersVersioned',
    ...(known ? { unless: known.version } : {}),
  });
  let cached = known;
  if (!cached || reply.users) {
    cached = { version: reply.version, users: reply.users ?? [], rendered: new Map() };
    byRealm.set(key, cached);
  }
  let rendered = cached.rendered.get(clientGravatar);
  if (!rendered) {
    const render = (users: UserProfile[]) =>
      new RawJson(JSON.stringify(users.map((u) => renderUser(u, clientGravatar))));
    rendered = {
      active: render(cached.users.filter((u) => u.is_active)),
      nonActive: render(cached.users.filter((u) => !u.is_active)),
    };
    cached.rendered.set(clientGravatar, rendered);
  }
  return { users: cached.users, ...rendered };
}
