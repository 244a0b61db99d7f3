import type { ProtocolOf } from './contract.js';
import type { Role, UserProfile } from './realm.js';

/**
 * The RealmActor's commands for managing other users' accounts (`PATCH
 * /users/{id}`): `actor_id` is the caller, whose rights the realm checks.
 */
export type UserAdminCommand =
  /** A user by address (the API address, or the real one when `viewer` may see it), deactivated ones and bots included; replies UserProfile or "No such user". */
  | { type: 'realm.userByEmail'; email: string; viewer: { user_id: number; role: Role }; domain: string }
  | { type: 'realm.updateUser'; actor_id: number; user_id: number; full_name?: string; role?: Role }
  /** The caller changed `email_address_visibility`; `domain` is the server's host, for the placeholder address. */
  | { type: 'realm.emailVisibility'; user_id: number; visibility: number; domain: string };

export type UserAdminReplies = {
  'realm.userByEmail': UserProfile;
  'realm.updateUser': Record<string, never>;
  'realm.emailVisibility': null;
};

export type UserAdminProtocol = ProtocolOf<UserAdminCommand, UserAdminReplies>;
