/**
 * The RealmActor's contract: the commands edges and tools send it and the
 * replies they get. Field names follow the API where the value reaches a
 * client unchanged.
 */
export const ROLES = { owner: 100, administrator: 200, moderator: 300, member: 400, guest: 600 } as const;
export type Role = (typeof ROLES)[keyof typeof ROLES];
export const isRole = (value: unknown): value is Role => Object.values(ROLES).includes(value as Role);

/** Bot types of the original server: generic, incoming webhook, outgoing webhook, embedded. */
export type BotType = 1 | 2 | 3 | 4;

export interface NewUser {
  email: string;
  full_name: string;
  role: Role;
  /** Produced by `hashPassword`; absent for accounts that never set one. */
  password_hash?: string;
  bot_type?: BotType;
  bot_owner_id?: number;
  timezone?: string;
}

export interface UserProfile {
  user_id: number;
  email: string;
  delivery_email: string;
  full_name: string;
  /** ISO 8601, as the API shows it. */
  date_joined: string;
  is_active: boolean;
  role: Role;
  is_bot: boolean;
  bot_type: BotType | null;
  bot_owner_id: number | null;
  timezone: string;
  avatar_version: number;
}

/** The reply to account creation: the creator hands the key over (as bot creation does). */
export interface CreatedUser extends UserProfile {
  api_key: string;
}

export interface RealmInfo {
  id: number;
  string_id: string;
  name: string;
  description: string;
  development: boolean;
  web_public_access_enabled: boolean;
  date_created: number;
}

/** Who is calling, as the edge learns it from authentication. */
export interface Principal {
  realm: string;
  user_id: number;
  email: string;
  role: Role;
  is_bot: boolean;
  full_name: string;
}

export interface ApiKeyGrant {
  api_key: string;
  email: string;
  user_id: number;
}

export type RealmCommand =
  | {
      type: 'realm.create';
      name: string;
      description: string;
      /** Only a server in development mode sends true. */
      development: boolean;
      web_public_access_enabled?: boolean;
      /** The first accounts, given consecutive ids in this order; one must be an owner. */
      users: NewUser[];
      /** Lets the development realm reproduce the original's user ids. */
      first_user_id?: number;
    }
  | { type: 'realm.info' }
  | { type: 'realm.createUser'; user: NewUser }
  | { type: 'realm.authenticate'; email: string; api_key: string }
  /** For password login: the edge verifies the hash, so the actor never spends ~50 ms on it. */
  | { type: 'realm.loginCandidate'; username: string }
  | { type: 'realm.devApiKey'; username: string }
  | { type: 'realm.getUser'; user_id: number }
  | { type: 'realm.listUsers' }
  | { type: 'realm.resetApiKey'; email: string }
  | { type: 'realm.registerChannel'; name: string }
  | { type: 'realm.findChannel'; name: string };

export interface LoginCandidate extends ApiKeyGrant {
  password_hash: string | null;
}
