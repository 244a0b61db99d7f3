import type { QueueEvent, RealmUserAddEvent, RealmUserRemoveEvent } from '@chat/protocol';

/**
 * A restricted guest's `realm_user` adds and removes for a change of access
 * (`api/src/users/access-events.ts`, `actors/user/src/direct-access.ts`),
 * not a new account's add.
 */
const isAccessChange = (e: QueueEvent): e is RealmUserAddEvent | RealmUserRemoveEvent =>
  e.type === 'realm_user' && ((e.op === 'add' && e.access === true) || e.op === 'remove');

/**
 * The events a restricted guest's queue passes, given whom its client
 * accesses (the snapshot's users, then each add and remove passed since,
 * updated here): an add of someone he has, or a remove of someone he has
 * not, is dropped. Access to a person follows from more than one change (a
 * channel joined, a first direct message) and each tells it from its own
 * actor, which cannot see what the other told: two adds of one person can
 * both be on their way, and a snapshot can hold an add whose origin it did
 * not read (the person came through the other change). The queue, knowing
 * what its client has, passes one.
 */
export function passAccess(accessible: Set<number>, events: QueueEvent[]): QueueEvent[] {
  if (!events.some(isAccessChange)) return events;
  return events.filter((e) => {
    if (!isAccessChange(e)) return true;
    const id = e.person.user_id;
    if (e.op === 'remove') return accessible.delete(id);
    if (accessible.has(id)) return false;
    accessible.add(id);
    return true;
  });
}

/** `passAccess` from the list a queue keeps: its copy as a set is made only when an event needs it (a push's hot path). */
export function passedBy(accessible: number[], events: QueueEvent[]): QueueEvent[] {
  return events.some(isAccessChange) ? passAccess(new Set(accessible), events) : events;
}

/** `accessible` after `events` passed (`passAccess`). */
export function afterAccess(accessible: number[], events: QueueEvent[]): number[] {
  if (!events.some(isAccessChange)) return accessible;
  const set = new Set(accessible);
  passAccess(set, events);
  return [...set];
}
