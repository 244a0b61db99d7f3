import { randomUUID } from 'node:crypto';
import { outgoingKey, type ActorClient } from '@chat/runtime';
import {
  channelAddress,
  isGuest,
  realmAddress,
  realmUserAdded,
  SYSTEM_GROUPS,
  userAddress,
  type NewPerson,
  type QueueEvent,
  type RealmUserAddEvent,
  type UserProfile,
  type UserRef,
} from '@chat/protocol';
import { renderUser } from './json.js';
import { accessFrom, activeIds, UNKNOWN_USER_NAME } from './access.js';

/**
 * After a channel's subscribers went from `before` to `after`: each
 * restricted guest among them whose access to someone changed hears of it,
 * as in the original (`realm_user` add with the person when he gains access,
 * remove with the placeholder name when he loses it). His access apart from
 * this channel is read from his own state (his other channels and group
 * direct messages). Nothing is asked unless the realm restricts guests and a
 * guest is among them. The events follow the subscription events, except
 * those `told` already (a present subscriber's adds, which subscribing sends
 * ahead of its `peer_add` in the same delivery, see `accessAddsFirst`).
 */
export async function tellAccessChanges(
  actors: ActorClient,
  realm: string,
  channelId: number,
  before: number[],
  after: number[],
  told: Map<number, QueueEvent[]> = new Map(),
): Promise<void> {
  const changes = await accessChanges(actors, realm, channelId, before, after);
  if (changes.size === 0) return;
  // The events name the channel as their cause, at a position that holds the change: a register whose
  // snapshot read the channel there or later already has them, and its queue drops them (`queue.cover`).
  const channel = channelAddress(realm, channelId);
  let at = 0;
  await actors.ask(channel, { type: 'channel.info' }, { onPosition: (p) => (at = p) });
  const key = (e: QueueEvent) => JSON.stringify(e);
  await Promise.all(
    [...changes].map(async ([guest, all]) => {
      const sent = new Set((told.get(guest) ?? []).map(key));
      const events = all.filter((e) => !sent.has(key(e)));
      if (events.length === 0) return;
      // Its own key (two changes may share the position read): only the origin is the channel's.
      const idempotencyKey = `${outgoingKey(channel, at, 0)}>access:${guest}:${randomUUID()}`;
      await actors.ask(userAddress(realm, guest), { type: 'user.deliver', events }, { idempotencyKey });
    }),
  );
}

/**
 * The `realm_user` adds each restricted guest already subscribed to a
 * channel is owed when `users` subscribe to it, to be delivered with the
 * `peer_add` and before it (the original sends them first), so the channel
 * only sends them if it adds the people; empty unless the realm restricts
 * guests and one is subscribed.
 */
export async function accessAddsFirst(
  actors: ActorClient,
  realm: string,
  channelId: number,
  users: number[],
): Promise<Map<number, QueueEvent[]>> {
  if (!(await restrictsGuests(actors, realm))) return new Map();
  const { subscribers } = await actors.ask(channelAddress(realm, channelId), { type: 'channel.info' });
  const changes = await accessChanges(actors, realm, channelId, subscribers, [...new Set([...subscribers, ...users])]);
  return new Map([...changes].filter(([guest]) => subscribers.includes(guest)));
}

/** The events `tellAccessChanges` delivers, by guest. */
async function accessChanges(
  actors: ActorClient,
  realm: string,
  channelId: number,
  before: number[],
  after: number[],
): Promise<Map<number, QueueEvent[]>> {
  const changes = new Map<number, QueueEvent[]>();
  if (!(await restrictsGuests(actors, realm))) return changes;
  const users = new Map(
    (await actors.ask(realmAddress(realm), { type: 'realm.listUsers' })).map((u) => [u.user_id, u]),
  );
  const was = new Set(before);
  const is = new Set(after);
  const guests = [...new Set([...before, ...after])].filter((id) => {
    const user = users.get(id);
    return user !== undefined && user.is_active && isGuest(user);
  });
  await Promise.all(
    guests.map(async (guest) => {
      const others = await accessApartFrom(actors, realm, guest, channelId);
      const had = new Set([...others, ...(was.has(guest) ? was : [])]);
      const has = new Set([...others, ...(is.has(guest) ? is : [])]);
      const human = (id: number) => users.get(id)?.is_bot === false;
      const viewer = { user_id: guest, role: users.get(guest)!.role };
      const events: QueueEvent[] = [
        ...[...has].filter((id) => !had.has(id) && human(id)).map((id) => accessAdded(person(users.get(id)!, viewer))),
        ...[...had]
          .filter((id) => !has.has(id) && human(id))
          .map((id) => ({
            type: 'realm_user' as const,
            op: 'remove' as const,
            person: { user_id: id, full_name: UNKNOWN_USER_NAME },
          })),
      ];
      if (events.length > 0) changes.set(guest, events);
    }),
  );
  return changes;
}

/** Whether the realm's `can_access_all_users_group` leaves guests out: a system group, everyone or members (no guest is a member). */
export async function restrictsGuests(actors: ActorClient, realm: string): Promise<boolean> {
  const settings = await actors.ask(realmAddress(realm), { type: 'realm.settings' });
  return settings.can_access_all_users_group !== SYSTEM_GROUPS['role:everyone'];
}

/** Whom `guest` may access through everything but one channel (`accessFrom`). */
async function accessApartFrom(actors: ActorClient, realm: string, guest: number, channelId: number) {
  const [state, users] = await Promise.all([
    actors.ask(userAddress(realm, guest), { type: 'user.state' }),
    actors.ask(realmAddress(realm), { type: 'realm.listUsers' }),
  ]);
  const channels = Object.keys(state.subscriptions)
    .map(Number)
    .filter((id) => id !== channelId);
  const infos = await Promise.all(
    channels.map((id) => actors.ask(channelAddress(realm, id), { type: 'channel.info' })),
  );
  return accessFrom(guest, infos, state.conversations, activeIds(users));
}

/** The person of a `realm_user` add: the avatar is left to the client, as the RealmActor's (see `presentNewUser`). */
function person(user: UserProfile, viewer: { user_id: number; role: UserProfile['role'] }) {
  return renderUser(user, viewer, true);
}

/** An add for a change of access, not a new account: the poll passes it as sent (`events/guest-view.ts`). */
const accessAdded = (p: NewPerson): RealmUserAddEvent => ({ ...realmUserAdded(p), access: true });

/**
 * Before a direct message is sent: for each restricted guest among its
 * people but its sender (who may access them all, or could not send), the
 * `realm_user` adds of the others, as the original's
 * `get_recipients_for_user_creation_events`. The conversation hands them to
 * his UserActor with its record of the conversation (`user.conversation`),
 * which tells his queues those he may not yet access when the conversation
 * is new to him, in the same change (`actors/user/src/direct-access.ts`): so
 * they come once, before the message, and a register whose snapshot read his
 * list there or later drops them (`queue.cover`). Asks only the realm (a
 * UserActor's timer calls it for a due scheduled message); undefined unless a
 * guest takes part and the realm restricts guests.
 */
export async function directAccessAdds(
  actors: ActorClient,
  realm: string,
  people: UserRef[],
  sender: number,
): Promise<Array<{ user_id: number; events: RealmUserAddEvent[] }> | undefined> {
  const guests = people.filter((p) => isGuest(p) && p.is_active && p.user_id !== sender);
  if (guests.length === 0 || !(await restrictsGuests(actors, realm))) return undefined;
  const profiles = await Promise.all(
    people
      .filter((p) => !p.is_bot)
      .map((p) => actors.ask(realmAddress(realm), { type: 'realm.getUser', user_id: p.user_id })),
  );
  return guests.map((guest) => {
    const viewer = { user_id: guest.user_id, role: guest.role };
    const others = profiles.filter((u) => u.user_id !== guest.user_id);
    return { user_id: guest.user_id, events: others.map((u) => accessAdded(person(u, viewer))) };
  });
}

/**
 * After `userId` was deactivated: each active restricted guest who could
 * access him only through a channel (not a direct-message conversation)
 * loses access and hears of it with a `realm_user` remove ("Unknown user"),
 * as the original's `send_events_for_user_deactivation`; the `is_active`
 * update then no longer reaches him (`events/guest-view.ts`). Nothing is
 * asked unless the realm restricts guests. The remove names the realm's
 * record of the deactivation (its journal position `at`) as its origin: a
 * register whose snapshot read the realm's users there or later no longer
 * counts him, and its queue drops the remove (`queue.cover`).
 */
export async function tellDeactivation(actors: ActorClient, realm: string, userId: number, at: number): Promise<void> {
  if (!(await restrictsGuests(actors, realm))) return;
  const users = await actors.ask(realmAddress(realm), { type: 'realm.listUsers' });
  const guests = users.filter((u) => u.is_active && isGuest(u) && u.user_id !== userId);
  const remove: QueueEvent = {
    type: 'realm_user',
    op: 'remove',
    person: { user_id: userId, full_name: UNKNOWN_USER_NAME },
  };
  await Promise.all(
    guests.map(async (guest) => {
      const state = await actors.ask(userAddress(realm, guest.user_id), { type: 'user.state' });
      if (state.conversations.some((c) => c.user_ids.includes(userId))) return;
      const infos = await Promise.all(
        Object.keys(state.subscriptions).map((id) =>
          actors.ask(channelAddress(realm, Number(id)), { type: 'channel.info' }),
        ),
      );
      if (!infos.some((info) => info.subscribers.includes(userId))) return;
      // Its own key (another change may share the position): only the origin is the realm's.
      const idempotencyKey = `${outgoingKey(realmAddress(realm), at, 0)}>access:${guest.user_id}:${randomUUID()}`;
      await actors.ask(
        userAddress(realm, guest.user_id),
        { type: 'user.deliver', events: [remove] },
        { idempotencyKey },
      );
    }),
  );
}
