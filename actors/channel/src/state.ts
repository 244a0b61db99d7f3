import { defaultChannelPermissions } from '@chat/protocol';
import type {
  ChannelChanges,
  ChannelReplies,
  ChannelSettings,
  IdRanges,
  MessageEdit,
  Reaction,
  StoredMessage,
  Submessage,
} from '@chat/protocol';
import type { Decision } from '@chat/runtime';
import { giveHistorical, keepOnLeaving, setGuest } from './holders.js';
import { applyMoveEvent, type MoveEvent, type PendingMove } from './move/state.js';

/**
 * One conversation: a channel with its subscribers, or a direct-message
 * conversation with its participants; either way its messages, oldest first.
 */
export interface ChannelState {
  kind: 'none' | 'channel' | 'dm';
  channel: ChannelSettings | null;
  /** Subscribers or participants, sorted. */
  members: number[];
  /**
   * For channels with protected history: the newest message id when each
   * subscriber joined; they see only what came after.
   */
  joinedAfter: Record<number, number>;
  /** Ids users have beyond their current subscription: see holders.ts (absent in older snapshots). */
  held?: Record<number, IdRanges>;
  /** Ids of historical rows per user: what they starred, marked unread or reacted to without having it (holders.ts). */
  historical?: Record<number, IdRanges>;
  /**
   * Set at creation: `held` holds subscription spans only. Absent in snapshots of channels made
   * before, where `held` may also keep a reaction's historical row as a one-id range (holders.ts).
   */
  rowsApart?: true;
  /** Those of them (and of `historical`) who are guests: a public channel's events leave them out. */
  heldByGuests?: number[];
  messages: StoredMessage[];
  /** Moves to another channel not yet finished, by move id (absent in older snapshots). */
  moving?: Record<string, PendingMove>;
}

export type ChannelEvent =
  | { type: 'channelCreated'; channel: ChannelSettings; subscribers: number[] }
  | { type: 'dmOpened'; userIds: number[] }
  | { type: 'subscribed'; userIds: number[] }
  /** `guests`: those of them who are guests (absent when none). */
  | { type: 'unsubscribed'; userIds: number[]; guests?: number[] }
  | { type: 'channelUpdated'; changes: ChannelChanges }
  | { type: 'messageSent'; message: StoredMessage }
  /** Content edits and topic moves inside the conversation; `content` fields only for a content edit. */
  | {
      type: 'messagesEdited';
      ids: number[];
      edit: MessageEdit;
      content?: Pick<StoredMessage, 'content' | 'rendered' | 'mentioned_user_ids' | 'mentioned_group_ids'> &
        Partial<StoredMessage>;
      topic?: string;
      at: number;
    }
  | { type: 'messagesRemoved'; ids: number[] }
  | { type: 'messagesImported'; messages: StoredMessage[] }
  | { type: 'reactionAdded'; id: number; reaction: Reaction }
  | { type: 'reactionRemoved'; id: number; reaction: Reaction }
  /** Starring or marking unread messages one does not have makes historical rows (holders.ts). */
  | { type: 'historicalGiven'; userId: number; ids: number[]; guest?: boolean }
  /** Whether someone with rows here, not subscribed, is a guest now (holders.ts). */
  | { type: 'guestChanged'; userId: number; guest: boolean }
  | { type: 'submessageAdded'; submessage: Submessage }
  | MoveEvent;

export function initialState(): ChannelState {
  return { kind: 'none', channel: null, members: [], joinedAfter: {}, messages: [] };
}

export const lastMessageId = (state: ChannelState): number => state.messages.at(-1)?.id ?? 0;

/** Index of the first message with id >= `id`. */
export function lowerBound(messages: StoredMessage[], id: number): number {
  let lo = 0;
  let hi = messages.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (messages[mid]!.id < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function findMessage(state: ChannelState, id: number): StoredMessage | undefined {
  const message = state.messages[lowerBound(state.messages, id)];
  return message?.id === id ? message : undefined;
}

const sortedUnion = (a: number[], b: number[]) => [...new Set([...a, ...b])].sort((x, y) => x - y);

export function applyEvent(state: ChannelState, event: ChannelEvent): void {
  switch (event.type) {
    case 'channelCreated':
      state.kind = 'channel';
      state.channel = event.channel;
      state.members = sortedUnion([], event.subscribers);
      // Replayed from its creation, a channel's reactions make their rows in `historical` (giveHistorical).
      state.rowsApart = true;
      return;
    case 'dmOpened':
      state.kind = 'dm';
      state.members = sortedUnion([], event.userIds);
      return;
    case 'subscribed':
      for (const id of event.userIds) state.joinedAfter[id] = lastMessageId(state);
      state.members = sortedUnion(state.members, event.userIds);
      return;
    case 'unsubscribed': {
      const gone = new Set(event.userIds);
      keepOnLeaving(state, event.userIds, lastMessageId(state), event.guests ?? []);
      state.members = state.members.filter((id) => !gone.has(id));
      for (const id of event.userIds) delete state.joinedAfter[id];
      return;
    }
    case 'channelUpdated': {
      const { permissions, ...plain } = event.changes;
      Object.assign(state.channel!, plain);
      for (const [name, change] of Object.entries(permissions ?? {})) {
        Object.assign(state.channel!, { [name]: change.new });
      }
      return;
    }
    case 'messageSent':
      // Ids only grow within a conversation, so appending keeps the order.
      state.messages.push(event.message);
      return;
    case 'messagesEdited':
      for (const id of event.ids) {
        const message = findMessage(state, id);
        if (!message) continue;
        if (event.content) Object.assign(message, event.content, { last_edit_timestamp: event.at });
        if (event.topic !== undefined) {
          message.topic = event.topic;
          message.last_moved_timestamp = event.at;
        }
        message.edits.push(event.edit);
      }
      return;
    case 'messagesRemoved': {
      const gone = new Set(event.ids);
      state.messages = state.messages.filter((m) => !gone.has(m.id));
      return;
    }
    case 'messagesImported':
      state.messages = [...state.messages, ...event.messages].sort((a, b) => a.id - b.id);
      return;
    case 'reactionAdded': {
      const message = findMessage(state, event.id);
      if (!message) return;
      giveHistorical(state, event.reaction.user_id, message);
      message.reactions.push(event.reaction);
      return;
    }
    case 'historicalGiven':
      for (const id of event.ids) {
        const message = findMessage(state, id);
        if (message) giveHistorical(state, event.userId, message);
      }
      if (event.guest) setGuest(state, event.userId, true);
      return;
    case 'guestChanged':
      setGuest(state, event.userId, event.guest);
      return;
    case 'reactionRemoved': {
      const message = findMessage(state, event.id);
      if (!message) return;
      const r = event.reaction;
      message.reactions = message.reactions.filter(
        (x) => !(x.user_id === r.user_id && x.emoji_code === r.emoji_code && x.reaction_type === r.reaction_type),
      );
      return;
    }
    case 'submessageAdded': {
      const message = findMessage(state, event.submessage.message_id);
      if (message) message.submessages = [...(message.submessages ?? []), event.submessage];
      return;
    }
    case 'moveStarted':
    case 'moveEnded':
      applyMoveEvent(state, event);
      return;
  }
}

/** Version 1 recorded a channel as a flat info object with its subscribers. */
export function upcast(event: unknown, version: number): ChannelEvent {
  const old = event as { type: string; info?: Record<string, unknown> & { subscribers: number[] } };
  if (version !== 1 || old.type !== 'channelCreated' || !old.info) return event as ChannelEvent;
  const { subscribers, channel_id, ...rest } = old.info;
  const channel = {
    ...defaultChannelPermissions(null),
    ...(rest as object),
    stream_id: channel_id as number,
    rendered_description: '',
    message_retention_days: null,
    is_archived: false,
    folder_id: null,
    topics_policy: 'inherit',
  } as ChannelSettings;
  return { type: 'channelCreated', channel, subscribers };
}

/** What a handler of the command type `K` decides: its reply is the one the protocol table names. */
export type ChannelDecision<K extends keyof ChannelReplies> = Decision<ChannelEvent, ChannelReplies[K]>;
