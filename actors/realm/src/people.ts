import {
  isAdministrator,
  isGuest,
  isOwner,
  mayManageAllInvites,
  type NewPerson,
  type QueueEvent,
  realmUserAdded,
  invitesChanged as invitesChangedEvent,
} from '@chat/protocol';
import { toEveryone } from './broadcast.js';
import { toProfile } from './profile.js';
import type { Account, RealmState } from './state.js';

/**
 * A user as `realm_user` events show them (the reference's User). A
 * gravatar is left to the client (null, as with `client_gravatar`); the edge
 * fills it in for queues that asked for URLs.
 */
export function personOf(account: Account): NewPerson {
  const profile = toProfile(account);
  return {
    user_id: profile.user_id,
    delivery_email: profile.delivery_email,
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
    avatar_url: profile.avatar_url ?? null,
    avatar_version: profile.avatar_version,
    profile_data: {},
  };
}

/** `realm_user` op `add` to every active account (the new one has no queue yet). */
export function userAdded(state: RealmState, account: Account) {
  const event: QueueEvent = realmUserAdded(personOf(account));
  return toEveryone(state, [event]);
}

/** `invites_changed` to the administrators and the invitation's creator: their lists need a refetch. */
export function invitesChanged(state: RealmState, inviterId: number) {
  const others = Object.values(state.accounts)
    .filter((a) => !mayManageAllInvites(a) && a.id !== inviterId)
    .map((a) => a.id);
  return toEveryone(state, [invitesChangedEvent()], others);
}
