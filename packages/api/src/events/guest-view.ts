import {
  isGuest,
  isMessageEvent,
  isRealmUserAdd,
  type NumberedEvent,
  type QueueSpec,
  type UserRef,
} from '@chat/protocol';
import type { CallerContext } from '../context.js';
import { accessibleUserIds, asAccessible, unknownUser } from '../users/access.js';

type Body = Record<string, unknown>;

/**
 * Events that name a user a restricted guest may not access (`users/access.ts`). An add sent because
 * his access changed (`access`) is not: it comes as sent, also when he has lost that access again by
 * the poll (its remove follows it), as the original delivers both.
 */
const aboutSomeone = (e: NumberedEvent) =>
  isMessageEvent(e) ||
  (isRealmUserAdd(e) && e.access !== true) ||
  e.type === 'presence' ||
  e.type === 'user_status' ||
  (e.type === 'realm_user' && e.op === 'update');

const subjectOf = (e: NumberedEvent): number | undefined =>
  e.type === 'realm_user' ? (e.person as { user_id: number }).user_id : (e as { user_id?: number }).user_id;

/**
 * A poll's events as a restricted guest sees them, as the original's: the
 * senders he may not access show as "Unknown user"; their presence, status
 * and account changes do not reach him; a new user (not a bot) is an
 * "Unknown user" (nothing with `user_list_incomplete`) if guests were
 * restricted at its creation, whatever his access or the setting by the
 * poll; the adds of his changes of access come as sent. Only guests are
 * asked about it; for everyone else `hidden` keeps every event and `people`
 * is the messages' own.
 */
export async function guestView(caller: CallerContext, events: NumberedEvent[], spec: QueueSpec, fakeDomain: string) {
  const access = isGuest(caller.principal) && events.some(aboutSomeone) ? await accessibleUserIds(caller) : null;
  const people = new Map<number, UserRef>(
    events.flatMap((e) => (isMessageEvent(e) ? e.people.map((u): [number, UserRef] => [u.user_id, u]) : [])),
  );
  // Bots are accessible to all: the ids the access set leaves out are asked once whether they are bots.
  const unknown = access
    ? [...new Set(events.filter(aboutSomeone).map(subjectOf))].filter(
        (id): id is number => id !== undefined && !access.has(id),
      )
    : [];
  const bots = new Set([...(await caller.users(unknown)).values()].filter((u) => u.is_bot).map((u) => u.user_id));
  const shown = asAccessible(people, access, fakeDomain);
  /** What the guest gets instead of `event` (undefined: the event as everyone gets it). */
  const instead = (event: NumberedEvent): Body[] | undefined => {
    if (isRealmUserAdd(event) && event.access !== true) {
      // A new account, judged as at its creation (the original's `notify_created_user`): a guest restricted
      // then could access no new human. He hears of the person when he gains access (an add with `access`),
      // also when that came before this poll. `restricted` unknown: as the setting is now.
      const restricted = event.restricted ?? access !== null;
      if (!restricted || !isGuest(caller.principal) || event.person.is_bot === true) return undefined;
      if (spec.capabilities.user_list_incomplete) return [];
      return [{ id: event.id, type: 'realm_user', op: 'add', person: unknownUser(event.person.user_id, fakeDomain) }];
    }
    if (!access || isMessageEvent(event) || !aboutSomeone(event)) return undefined;
    const id = subjectOf(event);
    if (id === undefined) return undefined;
    return access.has(id) || bots.has(id) ? undefined : [];
  };
  return { people: shown, instead };
}
