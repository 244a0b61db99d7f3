import { RawBytes } from '@chat/edge';
import { addressClass, seesAddress, type UserProfile } from '@chat/protocol';
import type { CallerContext } from '../../context.js';
import { renderUser, type Viewer } from '../../users/json.js';
import { mayAccess, unknownUser } from '../../users/access.js';
import { userList } from '../../users/user-list.js';

/** A guest under `can_access_all_users_group`: whom he may access, and how the others show. */
export interface Restriction {
  access: Set<number>;
  /** The fake e-mail domain of "Unknown user" addresses. */
  domain: string;
  /** The `user_list_incomplete` capability: inaccessible users are left out instead. */
  incomplete: boolean;
}

interface Rendering {
  active: Buffer;
  nonActive: Buffer;
  /** The byte where each active user's row starts in `active` (and, last, its length), to write one row anew. */
  starts: Int32Array;
}

function render(users: UserProfile[], viewer: Viewer, clientGravatar: boolean): string[] {
  return users.map((u) => JSON.stringify(renderUser(u, viewer, clientGravatar)));
}

const joined = (rows: string[]) => Buffer.from(`[${rows.join(',')}]`);

/** Row i of `[r0,r1,...]` spans bytes starts[i] to starts[i + 1] - 1 (the comma, or the closing bracket). */
function rowStarts(rows: string[]): Int32Array {
  const starts = new Int32Array(rows.length + 1);
  let at = 1;
  rows.forEach((row, i) => {
    starts[i] = at;
    at += Buffer.byteLength(row) + 1;
  });
  starts[rows.length] = Math.max(at, 2);
  return starts;
}

/**
 * `realm_users` and `realm_non_active_users` as this caller sees them. Who
 * sees which real address depends only on the class of the caller's role,
 * so each class's rendering is made once per list and shared. The one
 * exception is the caller's own row, whose address the caller always sees:
 * when the caller's own setting hides it from the caller's class, that row
 * is written anew between slices of the class's text.
 */
export async function realmUsers(caller: CallerContext, clientGravatar: boolean, restriction?: Restriction) {
  const cached = await userList(caller);
  const me = caller.principal;
  if (restriction) return restrictedUsers(cached.users, me, clientGravatar, restriction);
  const classViewer = { user_id: -1, role: addressClass(me.role) };
  const renderingKey = `${clientGravatar}:${classViewer.role}`;
  let rendered = cached.rendered.get(renderingKey) as Rendering | undefined;
  if (!rendered) {
    const nonActive = render(
      cached.users.filter((u) => !u.is_active),
      classViewer,
      clientGravatar,
    );
    const rows = render(cached.active, classViewer, clientGravatar);
    rendered = { active: joined(rows), nonActive: joined(nonActive), starts: rowStarts(rows) };
    cached.rendered.set(renderingKey, rendered);
  }
  const mine = cached.at.get(me.user_id);
  const own = mine !== undefined ? cached.active[mine]! : undefined;
  const nonActive = new RawBytes(rendered.nonActive);
  if (mine === undefined || !own || seesAddress(classViewer, own)) {
    return { users: cached.users, active: new RawBytes(rendered.active), nonActive };
  }
  // Slices of the shared bytes around the row written anew: no copy of the other rows.
  const bytes = rendered.active;
  const row = Buffer.from(JSON.stringify(renderUser(own, me, clientGravatar)));
  const before = bytes.subarray(0, rendered.starts[mine]);
  return {
    users: cached.users,
    active: new RawBytes(before, row, bytes.subarray(rendered.starts[mine + 1]! - 1)),
    nonActive,
  };
}

/**
 * The lists as a restricted guest sees them, row by row (guests only: the
 * shared renderings above stay untouched). An inaccessible user, active or
 * not, is an active "Unknown user", as the original's, or is left out.
 */
function restrictedUsers(users: UserProfile[], me: Viewer, clientGravatar: boolean, r: Restriction) {
  const active: string[] = [];
  const nonActive: string[] = [];
  for (const u of users) {
    if (mayAccess(r.access, u))
      (u.is_active ? active : nonActive).push(JSON.stringify(renderUser(u, me, clientGravatar)));
    else if (!r.incomplete) active.push(JSON.stringify(unknownUser(u.user_id, r.domain)));
  }
  return { users, active: new RawBytes(joined(active)), nonActive: new RawBytes(joined(nonActive)) };
}
