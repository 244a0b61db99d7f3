import type { ProtocolOf } from './contract.js';
import type { Role, UserProfile } from './realm.js';

/**
 * The RealmActor's commands for managing other users' accounts (`PATCH
 * /users/{id}`): `actor_id` is the caller, whose rights the realm checks.
 */
export type UserAdminCommand =
  /** A user by address, deactivated ones and bots included; replies UserProfile or "No such user". */
  | { type: 'realm.userByEmail'; email: string }
  | { type: 'realm.updateUser'; actor_id: number; user_id: number; full_name?: string; role?: Role };

export type UserAdminReplies = {
  'realm.userByEmail': UserProfile;
  'realm.updateUser': Record<string, never>;
};

export type UserAdminProtocol = ProtocolOf<UserAdminCommand, UserAdminReplies>;
