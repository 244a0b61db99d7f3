import { ChatError, userStatusEvent, type ReactionType, type StatusCommand, type UserStatusJson } from '@chat/protocol';
import { toEveryone } from '../broadcast.js';
import type { RealmEvent, RealmState } from '../state.js';
import type { RealmHandlers } from '../state.js';
import type { StatusProtocol } from '@chat/protocol';

/** A user's status as kept: empty strings where nothing is set. */
export interface StoredStatus {
  status_text: string;
  emoji_name: string;
  emoji_code: string;
  reaction_type: ReactionType;
}

export type StatusEvent =
  | { type: 'statusSet'; userId: number; status: StoredStatus }
  /** The user's `presence_enabled` setting, which `away` also reads and writes. */
  | { type: 'presenceEnabledSet'; userId: number; enabled: boolean };

const EMPTY: StoredStatus = { status_text: '', emoji_name: '', emoji_code: '', reaction_type: 'unicode_emoji' };

export const isInvisible = (state: RealmState, userId: number) => (state.invisible ?? []).includes(userId);

/** The reference's `UserStatus`: `away` is the inverse of `presence_enabled`; unset parts are left out. */
export function statusJson(state: RealmState, userId: number): UserStatusJson {
  const status = state.statuses?.[userId] ?? EMPTY;
  const json: UserStatusJson = {};
  if (isInvisible(state, userId)) json.away = true;
  if (status.status_text !== '') json.status_text = status.status_text;
  if (status.emoji_name !== '') {
    json.emoji_name = status.emoji_name;
    json.emoji_code = status.emoji_code;
    json.reaction_type = status.reaction_type;
  }
  return json;
}

const noUser = () => new ChatError('BAD_REQUEST', 'No such user');

/** Every active user who has a status, by id; users with none are left out, as in the original. */
function allStatuses(state: RealmState): Record<string, UserStatusJson> {
  const ids = new Set([...Object.keys(state.statuses ?? {}).map(Number), ...(state.invisible ?? [])]);
  const all: Record<string, UserStatusJson> = {};
  for (const id of [...ids].sort((a, b) => a - b)) {
    if (!state.accounts[id]?.isActive) continue;
    const json = statusJson(state, id);
    if (Object.keys(json).length > 0) all[id] = json;
  }
  return all;
}

type OwnCommand = Extract<
  StatusCommand,
  { type: 'realm.userStatus' | 'realm.statuses' | 'realm.presenceEnabled' | 'realm.setStatus' }
>;

export const statusHandlers: RealmHandlers<Pick<StatusProtocol, OwnCommand['type']>> = {
  'realm.userStatus': ({ state }, command) => {
    if (!state.accounts[command.user_id]) throw noUser();
    return { reply: statusJson(state, command.user_id) };
  },
  'realm.statuses': ({ state }) => {
    return { reply: allStatuses(state) };
  },
  'realm.presenceEnabled': ({ state }, command) => {
    if (!state.accounts[command.user_id]) throw noUser();
    if (isInvisible(state, command.user_id) === !command.enabled) return { reply: null };
    return {
      events: [{ type: 'presenceEnabledSet', userId: command.user_id, enabled: command.enabled }],
      reply: null,
    };
  },
  'realm.setStatus': ({ state }, command) => {
    const userId = command.user_id;
    if (!state.accounts[userId]) throw noUser();
    const status = { ...(state.statuses?.[userId] ?? EMPTY) };
    const changed: Parameters<typeof userStatusEvent>[1] = {};
    const events: RealmEvent[] = [];
    if (command.away !== undefined) {
      changed.away = command.away;
      if (isInvisible(state, userId) !== command.away) {
        events.push({ type: 'presenceEnabledSet', userId, enabled: !command.away });
      }
    }
    if (command.status_text !== undefined) status.status_text = changed.status_text = command.status_text;
    if (command.emoji) {
      Object.assign(status, command.emoji);
      Object.assign(changed, command.emoji);
    }
    events.push({ type: 'statusSet', userId, status });
    return { events, fanouts: [toEveryone(state, [userStatusEvent(userId, changed)])], reply: null };
  },
};

export function applyStatusEvent(state: RealmState, event: StatusEvent): void {
  switch (event.type) {
    case 'statusSet':
      (state.statuses ??= {})[event.userId] = event.status;
      return;
    case 'presenceEnabledSet': {
      const others = (state.invisible ?? []).filter((id) => id !== event.userId);
      state.invisible = event.enabled ? others : [...others, event.userId];
      return;
    }
  }
}
