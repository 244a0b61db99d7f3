import { ChatError, inGroupSetting, isGuest, placeholderEmail, ROLES, type UserRef } from '@chat/protocol';
import type { CallerContext } from '../context.js';
import { userList } from './user-list.js';

/**
 * Which users a guest may know of when the realm's `can_access_all_users_group`
 * leaves guests out (the original's `user_access_restricted_in_realm` and
 * `check_user_can_access_all_users`): himself, every bot, and whoever shares a
 * channel or a direct-message conversation with him (`get_accessible_user_ids`). The
 * decision is the edge's, per request, and only for guests: everyone else
 * gets `null` (no restriction) without a single extra ask, so the shared
 * rendering of the realm's user list stays one copy for them.
 */
export async function accessibleUserIds(caller: CallerContext): Promise<Set<number> | null> {
  if (!isGuest(caller.principal)) return null;
  // The request's cached realm settings: a guest's request that already read them asks nothing more.
  if (inGroupSetting((await caller.settings()).can_access_all_users_group, caller.principal)) return null;
  const [state, { users }] = await Promise.all([caller.state(), userList(caller)]);
  const infos = await Promise.all(
    Object.keys(state.subscriptions).map((id) => caller.channelInfo(Number(id)).catch(notShared)),
  );
  // The channel's word on whether he is subscribed: his own list may not have heard of a change yet, and a
  // register's snapshot must agree with the channel at the position it read (the access events' origin).
  // A channel he just left refuses him its subscribers ("Invalid channel ID") until his list hears of it.
  const me = caller.principal.user_id;
  const channels = infos.flatMap((info) => (info?.subscribers.includes(me) ? [info] : []));
  return accessFrom(me, channels, state.conversations, activeIds(users));
}

/** A channel's refusal of its subscribers to the caller ("Invalid channel ID", the only one of `channel.info`) as none shared. */
function notShared(err: unknown): undefined {
  if (err instanceof ChatError && err.code === 'BAD_REQUEST') return undefined;
  throw err;
}

/** The ids of the realm's active users. */
export const activeIds = (users: Array<{ user_id: number; is_active: boolean }>) =>
  new Set(users.filter((u) => u.is_active).map((u) => u.user_id));

/**
 * Whom a guest may access through his channels and conversations (the
 * original's `get_accessible_user_ids`): himself, the active subscribers of
 * his channels (a deactivated one no longer counts, as the original's
 * `is_user_active`), and his direct-message partners, active or not: a
 * conversation of direct messages counts as a shared one (the original's DM
 * groups; as its push code says, a direct message gives a guest access to its sender).
 */
export function accessFrom(
  guest: number,
  channels: Array<{ subscribers: number[] }>,
  conversations: Array<{ user_ids: number[] }>,
  active: Set<number>,
): Set<number> {
  const ids = new Set<number>([guest]);
  for (const info of channels) for (const id of info.subscribers) if (active.has(id)) ids.add(id);
  for (const c of conversations) for (const id of c.user_ids) ids.add(id);
  return ids;
}

export const UNKNOWN_USER_NAME = 'Unknown user';
/** The original's `get_avatar_for_inaccessible_user`: a static image, relative to the server. */
export const UNKNOWN_USER_AVATAR = '/static/images/unknown-user-avatar.png';

/** The original's `get_data_for_inaccessible_user`: placeholders whose only variable content is the id. */
export function unknownUser(userId: number, domain: string) {
  return {
    email: placeholderEmail(userId, domain),
    user_id: userId,
    avatar_version: 1,
    is_admin: false,
    is_owner: false,
    is_guest: false,
    role: ROLES.member,
    is_bot: false,
    full_name: UNKNOWN_USER_NAME,
    timezone: '',
    is_active: true,
    date_joined: '1970-01-01T00:00:00+00:00',
    delivery_email: null,
    avatar_url: UNKNOWN_USER_AVATAR,
    profile_data: {},
  };
}

/** Whether a guest under the restriction may see `user` (bots always). */
export const mayAccess = (access: Set<number> | null, user: { user_id: number; is_bot: boolean }) =>
  access === null || user.is_bot || access.has(user.user_id);

/** `GET /users/{id}` of a user the caller may not access: the original's `access_user_common`. */
export const insufficientPermission = () => new ChatError('BAD_REQUEST', 'Insufficient permission');

/**
 * The users a message list names, as a restricted guest may see them
 * (`access`, null: no restriction): the others as the original's
 * inaccessible senders (placeholder name, address and avatar).
 */
export function asAccessible(users: Map<number, UserRef>, access: Set<number> | null, domain: string) {
  if (access === null) return users;
  const shown = new Map<number, UserRef>();
  for (const [id, user] of users) {
    shown.set(
      id,
      mayAccess(access, user)
        ? user
        : {
            ...user,
            email: placeholderEmail(id, domain),
            full_name: UNKNOWN_USER_NAME,
            gravatar_url: UNKNOWN_USER_AVATAR,
            role: ROLES.member,
            bot_owner_id: null,
          },
    );
  }
  return shown;
}

/** The entries of users `access` admits (bots always), keyed by user id or, in the legacy presence format, by API address. */
export async function onlyAccessible<T>(caller: CallerContext, access: Set<number>, byUser: Record<string, T>) {
  const { users } = await userList(caller);
  const keep = new Set(users.filter((u) => mayAccess(access, u)).flatMap((u) => [String(u.user_id), u.email]));
  return Object.fromEntries(Object.entries(byUser).filter(([key]) => keep.has(key)));
}

/** Refuses, as the original's `access_user_common`, a user the caller may not access (missing ids pass: the caller's own check answers for them). */
export async function checkAccess(caller: CallerContext, userId: number): Promise<void> {
  const access = await accessibleUserIds(caller);
  if (access === null || access.has(userId)) return;
  const user = (await caller.users([userId])).get(userId);
  if (user && !mayAccess(access, user)) throw insufficientPermission();
}

/** The presences a caller may see: a restricted guest's leave out those of users he may not access. */
export async function visiblePresences<T>(caller: CallerContext, presences: Record<string, T>) {
  const access = await accessibleUserIds(caller);
  return access ? onlyAccessible(caller, access, presences) : presences;
}

/** A restricted guest's direct message to someone he may not access: the original's `check_sender_can_access_recipients`. */
export async function checkMayAccessAll(caller: CallerContext, recipients: UserRef[]): Promise<void> {
  const access = await accessibleUserIds(caller);
  if (access && recipients.some((u) => !mayAccess(access, u)))
    throw new ChatError('BAD_REQUEST', 'You do not have permission to access some of the recipients.');
}
