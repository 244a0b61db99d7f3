import { addRange, inRanges, participantsOfKey, type StoredMessage } from '@chat/protocol';
import type { ChannelState } from './state.js';

/*
 * Who has a message: the original's UserMessage rows, which are made when a
 * message is sent (to the subscribers of then), later for who reacts to it
 * without having it (a "historical" row), and on a move; unsubscribing
 * removes none. Here a channel keeps no row per message and reader:
 * - a subscriber has what came after joining (`joinedAfter`);
 * - `held` keeps, per user, the spans of subscriptions that ended (from
 *   joining to the last message at leaving); its keys are who ever left;
 * - `historical` keeps, per user, the ids of their historical rows: what
 *   they reacted to, starred or marked unread without having it (single
 *   ids; older snapshots have these in `held`);
 * - a message moved in names its holders (`holders`, and of them those
 *   whose row is historical, `historical`), since its id says nothing of
 *   who was subscribed when it was sent; `granted_to` is the older form
 *   (protected history only: the subscribers at the move).
 */

/** Whether `userId` has `message` of this conversation; `member`: whether they are subscribed, when known. */
export function holds(
  state: ChannelState,
  userId: number,
  message: StoredMessage,
  member = state.members.includes(userId),
): boolean {
  if (state.kind !== 'channel') return member;
  return holdsAs(state, userId, message, member);
}

/** `holds` for a channel, told whether the user is subscribed (a lookup in `members` is linear). */
function holdsAs(state: ChannelState, userId: number, message: StoredMessage, member: boolean): boolean {
  if (message.holders) return message.holders.includes(userId);
  const joined = state.joinedAfter[userId] ?? 0;
  if (member && (message.id > joined || (message.granted_to?.includes(userId) ?? false))) return true;
  return inRanges(state.held?.[userId] ?? [], message.id) || inRanges(state.historical?.[userId] ?? [], message.id);
}

/** Whether `userId`'s row of `message` is historical: made by acting on it without having it. */
export function historicalRow(state: ChannelState, userId: number, message: StoredMessage): boolean {
  if (message.holders) return message.historical?.includes(userId) ?? false;
  return inRanges(state.historical?.[userId] ?? [], message.id) || oldHistoricalRow(state, userId, message);
}

/**
 * A historical row as snapshots of channels made before `historical` kept it
 * (`rowsApart` absent): in `held`, as a range of the one message, which the
 * user reacted to (the only way such a row was made then). A subscription
 * span of exactly that one message, reacted to, reads the same: the one
 * case this rule gets wrong; a reaction since removed, or a row that merged
 * with a span next to it, stays unrecognised.
 */
function oldHistoricalRow(state: ChannelState, userId: number, message: StoredMessage): boolean {
  if (state.rowsApart || !state.held?.[userId]) return false;
  const alone = state.held[userId]!.some(([from, to]) => from === message.id && to === message.id);
  return alone && message.reactions.some((r) => r.user_id === userId);
}

/**
 * Holders of `messages` who never were subscribed here (no Subscription
 * row, active or not, in the original): their rows are historical ones,
 * which a move to another channel keeps (`ChannelMove.outsiders`).
 */
export function outsidersOf(state: ChannelState, messages: StoredMessage[]): number[] {
  const ever = (id: number) => state.held?.[id] !== undefined;
  const others = notSubscribed(state, messages).filter((id) => !ever(id));
  return othersHaving(state, messages, others).sort((a, b) => a - b);
}

/** Everyone who has `message`, sorted. */
export function holdersOf(state: ChannelState, key: string, message: StoredMessage): number[] {
  if (state.kind !== 'channel') return participantsOfKey(key) ?? state.members;
  if (message.holders) return [...message.holders].sort((a, b) => a - b);
  const others = othersHaving(state, [message], notSubscribed(state, [message]));
  return [...membersHaving(state, [message]), ...others].sort((a, b) => a - b);
}

/**
 * `holdersOf` and `historicalRow` for many messages of a channel at once (a
 * move): the subscribers are gone through once per distinct answer, not once
 * per message. Without `holders`, a message's subscribers who have it are
 * those who joined before it, and of the rest only the few with rows apart
 * (`held`, `historical`, `granted_to`); so the answer is one of a few, shared
 * by the messages it fits (never changed in place: see `giveHistorical`).
 */
export function rowsOfEach(state: ChannelState, key: string, messages: StoredMessage[]) {
  if (state.kind !== 'channel') return messages.map((m) => ({ holders: holdersOf(state, key, m), historical: [] }));
  const members = new Set(state.members);
  const joined = (id: number) => state.joinedAfter[id] ?? 0;
  const byJoin = [...state.members].sort((a, b) => joined(a) - joined(b));
  const joins = byJoin.map(joined);
  const ids = (rows?: Record<number, unknown>) => Object.keys(rows ?? {}).map(Number);
  const apart = [...new Set([...ids(state.held), ...ids(state.historical)])];
  const withHistorical = ids(state.historical).sort((a, b) => a - b);
  const answers = new Map<string, number[]>();
  const joinedBefore = new Map<number, number[]>();
  const sortedPrefix = (n: number) => {
    if (!joinedBefore.has(n))
      joinedBefore.set(
        n,
        byJoin.slice(0, n).sort((a, b) => a - b),
      );
    return joinedBefore.get(n)!;
  };
  return messages.map((m) => {
    if (m.holders) {
      const holders = [...m.holders].sort((a, b) => a - b);
      const historical = new Set(m.historical ?? []);
      return { holders, historical: holders.filter((id) => historical.has(id)) };
    }
    const before = countBelow(joins, m.id);
    const others = [
      ...new Set(
        [...apart, ...(m.granted_to ?? [])].filter(
          (id) => !(members.has(id) && joined(id) < m.id) && holdsAs(state, id, m, members.has(id)),
        ),
      ),
    ].sort((a, b) => a - b);
    const sig = `${before}:${others.join(',')}`;
    let holders = answers.get(sig);
    if (!holders) answers.set(sig, (holders = merged(sortedPrefix(before), others)));
    return { holders, historical: withHistorical.filter((id) => inRanges(state.historical![id]!, m.id)) };
  });
}

/** Two ascending lists with nothing in common, as one. */
function merged(a: number[], b: number[]): number[] {
  if (b.length === 0) return a;
  const out: number[] = [];
  let [i, j] = [0, 0];
  while (i < a.length || j < b.length) out.push(j >= b.length || (i < a.length && a[i]! < b[j]!) ? a[i++]! : b[j++]!);
  return out;
}

/** How many of `sorted` (ascending) are below `id`. */
function countBelow(sorted: number[], id: number): number {
  let [lo, hi] = [0, sorted.length];
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The subscribers who have any of `messages`. */
const membersHaving = (state: ChannelState, messages: StoredMessage[]) =>
  state.members.filter((id) => messages.some((m) => holdsAs(state, id, m, true)));

/** Of `ids`, none subscribed, those who have any of `messages`. */
const othersHaving = (state: ChannelState, messages: StoredMessage[], ids: number[]) =>
  ids.filter((id) => messages.some((m) => holdsAs(state, id, m, false)));

/** Who may have one of `messages` without being subscribed: `held`, `historical` and moved messages' holders. */
function notSubscribed(state: ChannelState, messages: StoredMessage[]): number[] {
  const members = new Set(state.members);
  const ids = new Set([
    ...Object.keys(state.held ?? {}).map(Number),
    ...Object.keys(state.historical ?? {}).map(Number),
    ...messages.flatMap((m) => m.holders ?? []),
  ]);
  return [...ids].filter((id) => !members.has(id));
}

/**
 * Who hears of a reaction or a deletion of `messages`, all of one
 * conversation (the original's `event_recipient_ids_for_action_on_messages`):
 * in a direct message its participants; with protected history, subscribers
 * who have any of them; in a private channel with shared history, its
 * subscribers; in a public one, its subscribers and whoever else has any of
 * them (former subscribers, historical rows) but guests.
 */
export function actionAudience(state: ChannelState, key: string, messages: StoredMessage[]): number[] {
  if (state.kind !== 'channel') return participantsOfKey(key) ?? state.members;
  const channel = state.channel!;
  if (!channel.history_public_to_subscribers) return membersHaving(state, messages);
  if (channel.invite_only) return state.members;
  // Guests do not see public channels they are not in: the original leaves them out here.
  const guests = new Set(state.heldByGuests ?? []);
  const others = notSubscribed(state, messages).filter((id) => !guests.has(id));
  return [...state.members, ...othersHaving(state, messages, others)];
}

/**
 * Who hears of an edit or a move inside the conversation (the original's
 * `do_update_message`): who has the edited message, and every subscriber
 * when the history is shared.
 */
export function editAudience(state: ChannelState, key: string, message: StoredMessage): number[] {
  const holders = holdersOf(state, key, message);
  if (state.kind !== 'channel' || !state.channel!.history_public_to_subscribers) return holders;
  return [...new Set([...holders, ...state.members])];
}

/** Leaving keeps what the subscription brought: the ids after joining, up to the newest. */
export function keepOnLeaving(state: ChannelState, userIds: number[], newest: number, guests: number[]): void {
  if (state.kind !== 'channel') return;
  const left = new Set(userIds);
  const stillGuests = (state.heldByGuests ?? []).filter((id) => !left.has(id));
  if (stillGuests.length + guests.length > 0) state.heldByGuests = [...stillGuests, ...guests].sort((a, b) => a - b);
  else delete state.heldByGuests;
  for (const id of userIds) {
    const from = (state.joinedAfter[id] ?? 0) + 1;
    state.held ??= {};
    // Kept even when empty: who ever was subscribed loses their rows on a move (see move/out.ts).
    state.held[id] = from > newest ? (state.held[id] ?? []) : addRange(state.held[id] ?? [], from, newest);
  }
}

/** A historical row: who reacts to, stars or marks unread a message without having it gets it. */
export function giveHistorical(state: ChannelState, userId: number, message: StoredMessage): void {
  if (state.kind !== 'channel' || holds(state, userId, message)) return;
  if (message.holders) {
    message.holders = [...message.holders, userId];
    message.historical = [...(message.historical ?? []), userId];
    return;
  }
  state.historical ??= {};
  state.historical[userId] = addRange(state.historical[userId] ?? [], message.id, message.id);
}

/** Whether `userId`, not subscribed, is a guest: a public channel's reactions and deletions leave guests out. */
export function setGuest(state: ChannelState, userId: number, guest: boolean): void {
  const others = (state.heldByGuests ?? []).filter((id) => id !== userId);
  const guests = guest ? [...others, userId].sort((a, b) => a - b) : others;
  if (guests.length > 0) state.heldByGuests = guests;
  else delete state.heldByGuests;
}

/** Whether `userId` has rows here apart from a subscription: who left, or made a historical row. */
export const holdsApart = (state: ChannelState, userId: number): boolean =>
  state.held?.[userId] !== undefined || state.historical?.[userId] !== undefined;
