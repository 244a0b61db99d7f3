import {
  addressClass,
  gravatarUrl,
  isAdministrator,
  seesAddress,
  type Role,
  isGuest,
  isOwner,
  mayManageAllInvites,
  type NewPerson,
  type QueueEvent,
  realmUserAdded,
  invitesChanged as invitesChangedEvent,
  SYSTEM_GROUPS,
} from '@chat/protocol';
import type { Fanout } from '@chat/runtime';
import { toEveryone, toUsers } from './broadcast.js';
import { toProfile } from './profile.js';
import type { Account, RealmState } from './state.js';

/**
 * A user as `realm_user` events show them (the reference's User). A
 * gravatar is left to the client (null, as with `client_gravatar`); the edge
 * fills it in for queues that asked for URLs. `delivery_email` is null for
 * recipients who may not see the address.
 */
export function personOf(account: Account, seen = true): NewPerson {
  const profile = toProfile(account);
  return {
    user_id: profile.user_id,
    delivery_email: seen ? profile.delivery_email : null,
    email: profile.email,
    full_name: profile.full_name,
    date_joined: profile.date_joined,
    is_active: profile.is_active,
    is_owner: isOwner(profile),
    is_admin: isAdministrator(profile),
    is_guest: isGuest(profile),
    is_bot: profile.is_bot,
    bot_type: profile.bot_type,
    bot_owner_id: profile.bot_owner_id,
    role: profile.role,
    timezone: profile.timezone,
    // Left to the client, except where it cannot compute it: from a placeholder address.
    avatar_url:
      profile.avatar_url ??
      (account.apiEmail !== undefined ? gravatarUrl(account.email, profile.avatar_version) : null),
    avatar_version: profile.avatar_version,
    profile_data: {},
  };
}

/**
 * `realm_user` op `add` of new accounts to every active account (the new
 * ones have no queue yet): one fan-out per class of roles that sees the same
 * addresses (`addressClass`), so each hears `delivery_email` as it may.
 * `restricted`: whether `can_access_all_users_group` left guests out at the
 * creation, by which a guest's poll judges the add (`events/guest-view.ts`).
 */
export function usersAdded(state: RealmState, accounts: Account[]): Fanout[] {
  const byClass = new Map<Role, number[]>();
  for (const other of Object.values(state.accounts)) {
    if (!other.isActive) continue;
    const role = addressClass(other.role);
    const ids = byClass.get(role);
    if (ids) ids.push(other.id);
    else byClass.set(role, [other.id]);
  }
  const restricted = state.settings.can_access_all_users_group !== SYSTEM_GROUPS['role:everyone'];
  return [...byClass].map(([role, ids]) => {
    const viewer = { user_id: -1, role };
    const events: QueueEvent[] = accounts.map((account) => ({
      ...realmUserAdded(personOf(account, seesAddress(viewer, toProfile(account)))),
      restricted,
    }));
    return toUsers(state, ids, events);
  });
}

/** `invites_changed` to the administrators and the invitation's creator: their lists need a refetch. */
export function invitesChanged(state: RealmState, inviterId: number) {
  const others = Object.values(state.accounts)
    .filter((a) => !mayManageAllInvites(a) && a.id !== inviterId)
    .map((a) => a.id);
  return toEveryone(state, [invitesChangedEvent()], others);
}
