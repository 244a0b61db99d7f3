import type { MutingProtocol } from '@chat/protocol';
import type { UserHandlers } from './state.js';
import {
  alertWordsEvent,
  ChatError,
  mutedUsersEvent,
  channelAddress,
  conversationAddress,
  inRanges,
  isMessageEvent,
  realmOfKey,
  type FlagTarget,
  type MessageQueueEvent,
  type MutedUser,
  type MutingSnapshot,
  type QueueEvent,
  userOfKey,
} from '@chat/protocol';
import type { ActorContext } from '@chat/runtime';
import { toOwnQueues } from './queues.js';
import { settingOf } from './settings.js';
import type { UserEvent, UserState } from './state.js';

/**
 * Whom and what the user hears: muted users (their messages arrive read,
 * as in the original), alert words (messages containing one arrive with
 * `has_alert_word`), and the read receipts the user shows others.
 */
export type MutingEvent =
  | { type: 'userMuted'; id: number; at: number }
  | { type: 'userUnmuted'; id: number }
  | { type: 'alertWordsSet'; words: string[] }
  /** Delivered messages that carried one of the user's alert words. */
  | { type: 'alerted'; ids: number[] };

const EVENTS: Record<MutingEvent['type'], true> = {
  userMuted: true,
  userUnmuted: true,
  alertWordsSet: true,
  alerted: true,
};

export const isMutingEvent = (event: UserEvent): event is MutingEvent => Object.hasOwn(EVENTS, event.type);

/** Oldest first, as the original lists them. */
export function mutedUsers(state: Readonly<UserState>): MutedUser[] {
  return Object.entries(state.mutedUsers ?? {})
    .map(([id, timestamp]) => ({ id: Number(id), timestamp }))
    .sort((a, b) => a.timestamp - b.timestamp || a.id - b.id);
}

export function applyMutingEvent(state: UserState, event: MutingEvent): void {
  switch (event.type) {
    case 'userMuted':
      state.mutedUsers = { ...state.mutedUsers, [event.id]: event.at };
      return;
    case 'userUnmuted': {
      const { [event.id]: _gone, ...rest } = state.mutedUsers ?? {};
      state.mutedUsers = rest;
      return;
    }
    case 'alertWordsSet':
      state.alertWords = event.words;
      return;
    case 'alerted':
      state.alerted = [...new Set([...(state.alerted ?? []), ...event.ids])].sort((a, b) => a - b);
      return;
  }
}

/** Whether the content holds the word as a whole word, without regard to case. */
function hasWord(content: string, word: string): boolean {
  const escaped = word.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^\\p{L}\\p{N}_])${escaped}($|[^\\p{L}\\p{N}_])`, 'u').test(content.toLowerCase());
}

/** What arriving messages change for the user, and the flags that adds to them. */
export interface Arrival {
  changes: UserEvent[];
  /** Extra flags by message id. */
  flags: Map<number, string[]>;
}

/**
 * A muted sender's messages are read at once (the original's way of
 * sparing their notifications and unread counts), and so are messages sent
 * read for the user (`read_by`: a new channel's notices, for its creator);
 * those with an alert word are remembered so that they keep
 * `has_alert_word`. Own messages change nothing.
 */
export function onArrival(key: string, state: Readonly<UserState>, events: QueueEvent[]): Arrival {
  const flags = new Map<number, string[]>();
  const muted = state.mutedUsers ?? {};
  const words = state.alertWords ?? [];
  const me = userOfKey(key);
  const readForMe = (e: QueueEvent) => isMessageEvent(e) && (e.read_by?.includes(me) ?? false);
  if (words.length === 0 && Object.keys(muted).length === 0 && !events.some(readForMe)) return { changes: [], flags };
  const realm = realmOfKey(key);
  const read: FlagTarget[] = [];
  const alerted: number[] = [];
  for (const event of events) {
    if (!isMessageEvent(event)) continue;
    const m = (event as MessageQueueEvent).message;
    if (m.sender_id === me) continue;
    const extra: string[] = [];
    if (muted[m.sender_id] !== undefined || readForMe(event)) {
      const conversation =
        m.channel_id !== null ? channelAddress(realm, m.channel_id) : conversationAddress(realm, m.dm_user_ids);
      read.push({ id: m.id, key: conversation.key, own: false });
      extra.push('read');
    }
    if (words.some((w) => hasWord(m.content, w))) {
      alerted.push(m.id);
      extra.push('has_alert_word');
    }
    if (extra.length > 0) flags.set(m.id, extra);
  }
  const changes: UserEvent[] = [];
  if (read.length > 0) changes.push({ type: 'flagsChanged', op: 'add', flag: 'read', targets: read });
  if (alerted.length > 0) changes.push({ type: 'alerted', ids: alerted });
  return { changes, flags };
}

const alertWordsOf = (state: Readonly<UserState>) => state.alertWords ?? [];

/** Adds or removes alert words; words are kept as first given and compared without case, as the original does. */
function changeAlertWords(ctx: ActorContext<UserState>, given: string[], adding: boolean) {
  const words = alertWordsOf(ctx.state);
  const trimmed = given.map((w) => w.trim()).filter((w) => w !== '');
  const lower = new Set(trimmed.map((w) => w.toLowerCase()));
  const kept = words.filter((w) => !lower.has(w.toLowerCase()));
  const added = adding ? [...new Map(trimmed.map((w) => [w.toLowerCase(), w])).values()] : [];
  const after = [...kept, ...added];
  if (after.length === words.length && after.every((w, i) => w === words[i])) return { reply: { alert_words: words } };
  return {
    events: [{ type: 'alertWordsSet' as const, words: after }],
    tells: toOwnQueues(ctx.address.key, ctx.state, [alertWordsEvent(after)]),
    reply: { alert_words: after },
  };
}

export const mutingHandlers: UserHandlers<MutingProtocol> = {
  'user.muteUser': (ctx, command) => {
    const state = ctx.state;
    const id = command.muted_user_id;
    if (state.mutedUsers?.[id] !== undefined) throw new ChatError('BAD_REQUEST', 'User already muted');
    const at = Math.floor(ctx.now / 1000);
    const after = [...mutedUsers(state), { id, timestamp: at }];
    const tells = toOwnQueues(ctx.address.key, state, [mutedUsersEvent(after)]);
    return { events: [{ type: 'userMuted', id, at }], tells, reply: null };
  },
  'user.unmuteUser': (ctx, command) => {
    const state = ctx.state;
    const id = command.muted_user_id;
    if (state.mutedUsers?.[id] === undefined) throw new ChatError('BAD_REQUEST', 'User is not muted');
    const after = mutedUsers(state).filter((m) => m.id !== id);
    const tells = toOwnQueues(ctx.address.key, state, [mutedUsersEvent(after)]);
    return { events: [{ type: 'userUnmuted', id }], tells, reply: null };
  },
  'user.alertWords': ({ state }) => ({ reply: { alert_words: alertWordsOf(state) } }),
  'user.addAlertWords': (ctx, command) => changeAlertWords(ctx, command.words, true),
  'user.removeAlertWords': (ctx, command) => changeAlertWords(ctx, command.words, false),
  'user.readReceipt': ({ state }, command) => {
    const received = command.held === true || !inRanges(state.notReceived?.[command.key] ?? [], command.message_id);
    const read = received && inRanges(state.read[command.key] ?? [], command.message_id);
    const shows = settingOf(state, 'send_read_receipts') === true;
    const muted = state.mutedUsers?.[command.asker] !== undefined;
    return { reply: read && shows && !muted };
  },
  'user.mutingSnapshot': ({ state }, command) => {
    const wants = new Set(command.sections);
    const reply: MutingSnapshot = {};
    if (wants.has('muted_users')) reply.muted_users = mutedUsers(state);
    if (wants.has('alert_words')) reply.alert_words = alertWordsOf(state);
    return { reply };
  },
};
