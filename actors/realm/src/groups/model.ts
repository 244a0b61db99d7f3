import {
  inGroupSetting,
  mayHoldGroupPermission,
  ROLES,
  SYSTEM_GROUPS,
  systemGroupsOf,
  USER_GROUP_PERMISSIONS,
  type GroupSetting,
  type Member,
  type Resolved,
  type SystemGroupName,
  type UserGroup,
  type UserGroupPermission,
  type UserProfile,
} from '@chat/protocol';
import type { Account, RealmState } from '../state.js';
import { listUsers } from '../user-list.js';

/** A user-defined group as the RealmActor keeps it; members include deactivated users (hidden on read). */
export interface StoredGroup {
  id: number;
  name: string;
  description: string;
  date_created: number | null;
  creator_id: number | null;
  members: number[];
  subgroups: number[];
  deactivated: boolean;
  settings: Record<UserGroupPermission, GroupSetting>;
}

const NOBODY = SYSTEM_GROUPS['role:nobody'];

/**
 * The system groups as the original lays them out: each role's users are
 * direct members of their role's group, and each group has the next
 * narrower one as its subgroup (owners within administrators, and so on).
 */
const SYSTEM: Record<SystemGroupName, { description: string; roles: number[]; subgroup?: SystemGroupName }> = {
  'role:internet': { description: 'Everyone on the internet', roles: [], subgroup: 'role:everyone' },
  'role:everyone': {
    description: 'Everyone in this organization, including guests',
    roles: [ROLES.guest],
    subgroup: 'role:members',
  },
  'role:members': {
    description: 'Members of this organization, not including guests',
    roles: [ROLES.member],
    subgroup: 'role:fullmembers',
  },
  'role:fullmembers': {
    description: 'Members of this organization, not including new accounts and guests',
    roles: [ROLES.member],
    subgroup: 'role:moderators',
  },
  'role:moderators': {
    description: 'Moderators of this organization, including administrators',
    roles: [ROLES.moderator],
    subgroup: 'role:administrators',
  },
  'role:administrators': {
    description: 'Administrators of this organization, including owners',
    roles: [ROLES.administrator],
    subgroup: 'role:owners',
  },
  'role:owners': { description: 'Owners of this organization', roles: [ROLES.owner] },
  'role:nobody': { description: 'Nobody', roles: [] },
};
const SYSTEM_BY_ID = new Map(
  Object.entries(SYSTEM_GROUPS).map(([name, id]) => [id as number, name as SystemGroupName]),
);

export const isSystemGroup = (id: number) => SYSTEM_BY_ID.has(id);
export const userGroupsOf = (state: RealmState): Record<number, StoredGroup> => state.userGroups ?? {};
export const groupExists = (state: RealmState, id: number) =>
  isSystemGroup(id) || userGroupsOf(state)[id] !== undefined;
/**
 * A system group's members, found once for each list of the realm's users
 * (`listUsers`: a new list after any event that may change an account).
 * Every register lists every group, and walking ten thousand accounts for
 * each of eight groups was 6 ms of the realm's one mailbox a register.
 */
const systemMembers = new WeakMap<UserProfile[], Map<SystemGroupName, number[]>>();

function membersOfSystem(state: RealmState, system: SystemGroupName): number[] {
  const { users } = listUsers(state);
  let groups = systemMembers.get(users);
  if (!groups) systemMembers.set(users, (groups = new Map()));
  let members = groups.get(system);
  if (!members) {
    const roles = SYSTEM[system].roles;
    members = users.filter((u) => u.is_active && roles.includes(u.role)).map((u) => u.user_id);
    groups.set(system, members);
  }
  return members;
}

/** Not to be changed: a system group's list is shared by every caller until an account changes. */
export function directMembers(state: RealmState, id: number): number[] {
  const system = SYSTEM_BY_ID.get(id);
  if (system) return membersOfSystem(state, system);
  const group = userGroupsOf(state)[id];
  return (group?.members ?? []).filter((m) => state.accounts[m]?.isActive).sort((a, b) => a - b);
}

export function directSubgroups(state: RealmState, id: number): number[] {
  const system = SYSTEM_BY_ID.get(id);
  if (system) return SYSTEM[system].subgroup ? [SYSTEM_GROUPS[SYSTEM[system].subgroup!]] : [];
  return [...(userGroupsOf(state)[id]?.subgroups ?? [])].sort((a, b) => a - b);
}

/** Every group below `roots`, the roots included. */
export function withSubgroups(state: RealmState, roots: number[]): Set<number> {
  const found = new Set<number>();
  const pending = [...roots];
  while (pending.length > 0) {
    const id = pending.pop()!;
    if (found.has(id)) continue;
    found.add(id);
    pending.push(...directSubgroups(state, id));
  }
  return found;
}

/** The group and every group above it, through subgroups, active or not. */
export function withSupergroups(state: RealmState, id: number): Set<number> {
  const found = new Set([id]);
  for (let grew = true; grew;) {
    grew = false;
    for (const g of Object.values(userGroupsOf(state))) {
      if (!found.has(g.id) && g.subgroups.some((s) => found.has(s))) {
        found.add(g.id);
        grew = true;
      }
    }
  }
  return found;
}

/** Active users in the group, directly or through subgroups. */
export function allMembers(state: RealmState, id: number): number[] {
  const ids = new Set<number>();
  for (const group of withSubgroups(state, [id])) for (const m of directMembers(state, group)) ids.add(m);
  return [...ids].sort((a, b) => a - b);
}

/**
 * Every group containing the account: its role's system groups and every
 * active user-defined group that holds it directly or through subgroups.
 * This is what permission checks (`inGroupSetting`) are made against.
 */
export function groupsContaining(state: RealmState, account: Account): number[] {
  const inside = new Set(systemGroupsOf(account.role));
  const groups = Object.values(userGroupsOf(state)).filter((g) => !g.deactivated);
  for (const g of groups) if (g.members.includes(account.id)) inside.add(g.id);
  // Widen until stable: a group whose subgroup contains the user contains them too.
  for (let grew = true; grew;) {
    grew = false;
    for (const g of groups) {
      if (!inside.has(g.id) && g.subgroups.some((s) => inside.has(s))) {
        inside.add(g.id);
        grew = true;
      }
    }
  }
  return [...inside].sort((a, b) => a - b);
}

export const memberOf = (state: RealmState, account: Account): Member => ({
  user_id: account.id,
  groups: groupsContaining(state, account),
});

export function holds(state: RealmState, setting: GroupSetting, account: Account, name?: UserGroupPermission) {
  if (name && !mayHoldGroupPermission(account, name)) return false;
  return inGroupSetting(setting, memberOf(state, account));
}

export function groupJson(state: RealmState, id: number): UserGroup {
  const system = SYSTEM_BY_ID.get(id);
  const stored = userGroupsOf(state)[id];
  const settings = stored?.settings ?? Object.fromEntries(USER_GROUP_PERMISSIONS.map((p) => [p, NOBODY]));
  return {
    id,
    name: system ?? stored!.name,
    description: system ? SYSTEM[system].description : stored!.description,
    date_created: stored?.date_created ?? null,
    creator_id: stored?.creator_id ?? null,
    members: directMembers(state, id),
    direct_subgroup_ids: directSubgroups(state, id),
    is_system_group: system !== undefined,
    deactivated: stored?.deactivated ?? false,
    ...(settings as Record<UserGroupPermission, GroupSetting>),
  };
}

/** System groups, then user-defined ones, by id. */
export function listGroups(state: RealmState, includeDeactivated: boolean): UserGroup[] {
  const user = Object.values(userGroupsOf(state)).filter((g) => includeDeactivated || !g.deactivated);
  const ids = [...SYSTEM_BY_ID.keys(), ...user.map((g) => g.id)].sort((a, b) => a - b);
  return ids.map((id) => groupJson(state, id));
}

/** Active user-defined groups by name, for mentions: their members and whether the sender may mention them. */
export function groupsByName(state: RealmState, names: string[], mentionerId?: number): Resolved['groups'] {
  const wanted = new Set(names.map((n) => n.trim().toLowerCase()));
  if (wanted.size === 0) return [];
  const mentioner = mentionerId === undefined ? undefined : state.accounts[mentionerId];
  return Object.values(userGroupsOf(state))
    .filter((g) => !g.deactivated && wanted.has(g.name.toLowerCase()))
    .map((g) => ({
      id: g.id,
      name: g.name,
      members: allMembers(state, g.id),
      ...(mentioner ? { can_mention: holds(state, g.settings.can_mention_group, mentioner) } : {}),
    }));
}
