/** Client events about the organization's users, in the reference's shapes (`GET /events`). */
import type { QueueEvent } from '../queue.js';
import type { LegacyPresence, ModernPresence } from '../status.js';

/** The reference's User as `realm_user` op `add` carries it; the edge fills `avatar_url` for queues that asked for URLs. */
export type NewPerson = {
  user_id: number;
  email: string;
  avatar_url: string | null;
  avatar_version: number;
  [field: string]: unknown;
};
/** What changed about one user: `user_id` and the changed fields only. */
export type PersonUpdate = { user_id: number; [field: string]: unknown };

/**
 * `access`: sent to a restricted guest because his access to the person changed, not for a new account
 * (the edge passes it as sent at poll time, `events/guest-view.ts`). `restricted`: a new account's, whether
 * guests were restricted at its creation, by which a guest's poll judges it. Clients never see either.
 */
export type RealmUserAddEvent = {
  type: 'realm_user';
  op: 'add';
  person: NewPerson;
  access?: true;
  restricted?: boolean;
};
export type RealmUserUpdateEvent = { type: 'realm_user'; op: 'update'; person: PersonUpdate };
/** To a guest who lost access to a user (`can_access_all_users_group`): the name is the placeholder's. */
export type RealmUserRemoveEvent = { type: 'realm_user'; op: 'remove'; person: { user_id: number; full_name: string } };
export const realmUserAdded = (person: NewPerson): RealmUserAddEvent => ({ type: 'realm_user', op: 'add', person });
export const realmUserUpdated = (person: PersonUpdate): RealmUserUpdateEvent => ({
  type: 'realm_user',
  op: 'update',
  person,
});
export const isRealmUserAdd = (event: QueueEvent): event is RealmUserAddEvent =>
  event.type === 'realm_user' && event.op === 'add' && 'person' in event;

/** Built with both shapes; the edge keeps `presences` or the legacy fields, as the client's capability asks. */
export type PresenceEvent = {
  type: 'presence';
  user_id: number;
  email: string;
  server_timestamp: number;
  presence: Record<string, LegacyPresence | undefined>;
  presences: Record<number, ModernPresence>;
};
export const presenceEvent = (fields: Omit<PresenceEvent, 'type'>): PresenceEvent => ({ type: 'presence', ...fields });
export const isPresence = (event: QueueEvent): event is PresenceEvent =>
  event.type === 'presence' && 'presences' in event;

export type UserEvent =
  RealmUserAddEvent | RealmUserRemoveEvent | RealmUserUpdateEvent | PresenceEvent | BotChangeEvent | HeartbeatEvent;

/** `realm_bot` `update` (the changed fields) and `delete`, to the bot's owner and administrators. */
export type BotChangeEvent =
  | { type: 'realm_bot'; op: 'update'; bot: PersonUpdate }
  | { type: 'realm_bot'; op: 'delete'; bot: { user_id: number } };
export const botUpdated = (bot: PersonUpdate): BotChangeEvent => ({ type: 'realm_bot', op: 'update', bot });
export const botRemoved = (user_id: number): BotChangeEvent => ({ type: 'realm_bot', op: 'delete', bot: { user_id } });

/** What a waiting poll gets when nothing happened. */
export type HeartbeatEvent = { type: 'heartbeat' };
export const heartbeatEvent = (): HeartbeatEvent => ({ type: 'heartbeat' });
