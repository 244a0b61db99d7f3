import {
  ChatError,
  isOwner,
  mayManageUser,
  roleChangeRefusal,
  SYSTEM_GROUPS,
  type QueueEvent,
  type UserAdminProtocol,
  type Role,
  type UserAdminCommand,
  realmUserUpdated,
  groupMembers,
  placeholderEmail,
  placeholderUserId,
  seesAddress,
  type MembersOp,
} from '@chat/protocol';
import type { Decision } from '@chat/runtime';
import { knowledgeTells } from '../channel-knowledge.js';
import { toEveryone } from '../broadcast.js';
import { directMembers } from '../groups/model.js';
import { toProfile } from '../profile.js';
import { accountByEmail } from '../behavior.js';
import type { Account, RealmEvent, RealmHandlers, RealmState } from '../state.js';
import { checkFullName, type AccountUpdateEvent } from './update.js';

/** An administrator's change of another account's role. */
export interface RoleChangedEvent {
  type: 'roleChanged';
  userId: number;
  role: Role;
}

const bad = (msg: string) => new ChatError('BAD_REQUEST', msg);

/** The system groups whose direct members have this role (one role group, and full members for members). */
function roleGroups(state: RealmState, userId: number): Set<number> {
  return new Set(Object.values(SYSTEM_GROUPS).filter((id) => directMembers(state, id).includes(userId)));
}

function update(
  state: RealmState,
  cmd: Extract<UserAdminCommand, { type: 'realm.updateUser' }>,
): Decision<RealmEvent, Record<string, never>> {
  const actor = state.accounts[cmd.actor_id];
  const target = state.accounts[cmd.user_id];
  if (!actor?.isActive) throw bad('Insufficient permission');
  if (!target) throw bad('No such user');
  if (!mayManageUser(actor, target)) throw bad('Insufficient permission');
  const events: RealmEvent[] = [];
  const queue: QueueEvent[] = [];
  if (cmd.role !== undefined && cmd.role !== target.role) {
    const lacking = roleChangeRefusal(actor, target.role, cmd.role);
    if (lacking) {
      throw new ChatError('UNAUTHORIZED_PRINCIPAL', `Must be an organization ${lacking}`);
    }
    const owners = Object.values(state.accounts).filter((a) => a.isActive && isOwner(a) && a.botType === null);
    if (isOwner(target) && owners.length === 1) {
      throw bad('The owner permission cannot be removed from the only organization owner.');
    }
    const before = roleGroups(state, target.id);
    const after = roleGroups(
      { ...state, accounts: { ...state.accounts, [target.id]: { ...target, role: cmd.role } } },
      target.id,
    );
    events.push({ type: 'roleChanged', userId: target.id, role: cmd.role });
    queue.push(realmUserUpdated({ user_id: target.id, role: cmd.role }));
    const members = (op: MembersOp, ids: number[]) => ids.map((group_id) => groupMembers(op, group_id, [target.id]));
    queue.push(
      ...members(
        'remove_members',
        [...before].filter((id) => !after.has(id)),
      ),
    );
    queue.push(
      ...members(
        'add_members',
        [...after].filter((id) => !before.has(id)),
      ),
    );
  }
  // A blank name is ignored, as the original ignores it.
  if (cmd.full_name !== undefined && cmd.full_name.trim() !== '' && cmd.full_name !== target.fullName) {
    const name = checkFullName(cmd.full_name);
    if (name !== target.fullName) {
      const renamed: AccountUpdateEvent = { type: 'accountUpdated', userId: target.id, fullName: name };
      events.push(renamed);
      queue.push(realmUserUpdated({ user_id: target.id, full_name: name }));
    }
  }
  if (events.length === 0) return { reply: {} };
  // A new role may let him know of other channels, or no longer (the original's send_stream_events_for_role_update).
  const role = cmd.role !== undefined && cmd.role !== target.role ? cmd.role : undefined;
  const after = { ...state, accounts: { ...state.accounts, [target.id]: { ...target, role: role ?? target.role } } };
  const tells =
    role === undefined ? [] : knowledgeTells(state, after, [target], Object.keys(state.channels).map(Number));
  return { events, fanouts: [toEveryone(state, queue)], tells, reply: {} };
}

/**
 * `GET /users/{email}` as the original since feature level 302: the real
 * address finds the user only for a viewer who may see it; the placeholder
 * form `user<id>@<server host>` finds anyone by the id it embeds.
 */
function userByEmail(
  state: RealmState,
  email: string,
  viewer: { user_id: number; role: Role },
  domain: string,
): Account | undefined {
  const account = accountByEmail(state, email.trim());
  if (account && seesAddress(viewer, toProfile(account))) return account;
  const id = placeholderUserId(email);
  if (id === undefined || email.trim().toLowerCase() !== placeholderEmail(id, domain).toLowerCase()) return undefined;
  return state.accounts[id];
}

export const userAdminHandlers: RealmHandlers<Pick<UserAdminProtocol, 'realm.userByEmail' | 'realm.updateUser'>> = {
  'realm.userByEmail': ({ state }, command) => {
    const account = userByEmail(state, command.email, command.viewer, command.domain);
    if (!account) throw bad('No such user');
    return { reply: toProfile(account) };
  },
  'realm.updateUser': ({ state }, command) => update(state, command),
};

export function applyRoleChanged(state: RealmState, event: RoleChangedEvent): void {
  const account = state.accounts[event.userId];
  if (account) account.role = event.role;
}
