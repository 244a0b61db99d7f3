import {
  ChatError,
  type LegacyPresence,
  type ModernPresence,
  type PresenceReply,
  type StatusCommand,
  presenceEvent,
} from '@chat/protocol';
import type { ActorContext, Decision } from '@chat/runtime';
import { toEveryone } from '../broadcast.js';
import { apiEmailOf } from '../profile.js';
import { byApiEmail } from '../directory.js';
import type { Account, RealmEvent, RealmState } from '../state.js';
import { isInvisible } from './status.js';
import type { RealmHandlers } from '../state.js';
import type { StatusProtocol } from '@chat/protocol';

/**
 * Presence as the original keeps it: per user, when a client last said the
 * user was active and when one was last connected at all (seconds), and the
 * update id that lets clients fetch only what changed.
 */
export interface PresenceRow {
  active: number | null;
  idle: number;
  updateId: number;
}

export type PresenceEvent = { type: 'presenceReported'; userId: number; row: PresenceRow };

/** What clients are told (`server_presence_offline_threshold_seconds`): older timestamps mean offline. */
export const OFFLINE_THRESHOLD_SECONDS = 140;
/** Clients ping every minute; a ping that changes nothing worth telling within this time is not written. */
const MIN_WRITE_INTERVAL_SECONDS = 55;
/** The legacy format calls a user active if they were active this shortly before their last connection. */
const LEGACY_ACTIVE_OFFSET_SECONDS = 70;
const DEFAULT_HISTORY_DAYS = 14;

type Ctx = ActorContext<RealmState>;
type OwnCommand = Extract<
  StatusCommand,
  { type: 'realm.reportPresence' | 'realm.presences' | 'realm.userPresence' | 'realm.recentlyActive' }
>;

export function modernPresence(row: PresenceRow, account: Account): ModernPresence {
  // A user who was never active counts as last active when they joined, as in the original.
  return { active_timestamp: row.active ?? account.dateJoined, idle_timestamp: row.idle };
}

export function legacyPresence(row: PresenceRow, account: Account): LegacyPresence {
  const { active_timestamp: active, idle_timestamp: idle } = modernPresence(row, account);
  return active + LEGACY_ACTIVE_OFFSET_SECONDS >= idle
    ? { client: 'website', status: 'active', timestamp: active }
    : { client: 'website', status: 'idle', timestamp: idle };
}

/** The original has kept no per-client data since FL 178: `website` and `aggregated` say the same. */
function legacyEntry(row: PresenceRow, account: Account): Record<string, LegacyPresence> {
  const presence = legacyPresence(row, account);
  return { website: { ...presence, pushable: false }, aggregated: presence };
}

/** Accounts whose presence others may see: active humans sharing their presence. */
function visibleRows(state: RealmState): Array<[Account, PresenceRow]> {
  return Object.entries(state.presence ?? {}).flatMap(([id, row]): Array<[Account, PresenceRow]> => {
    const account = state.accounts[Number(id)];
    if (!account?.isActive || account.botType !== null || isInvisible(state, account.id)) return [];
    return [[account, row]];
  });
}

/** The original's count for `USER_LIMIT_FOR_SENDING_PRESENCE_UPDATE_EVENTS`: every active account, bots too. */
function activeUsers(state: RealmState): number {
  let count = 0;
  for (const account of Object.values(state.accounts)) if (account.isActive) count++;
  return count;
}

function report(ctx: Ctx, command: Extract<OwnCommand, { type: 'realm.reportPresence' }>): Decision<RealmEvent, null> {
  const { user_id: userId, status } = command;
  const state = ctx.state;
  const account = state.accounts[userId];
  // Invisible users report nothing, so that turning presence back on does not reveal the past.
  if (!account || isInvisible(state, userId)) return { reply: null };
  const now = Math.floor(ctx.now / 1000);
  const old = state.presence?.[userId];
  const stale = (at: number | null | undefined) => at == null || now - at > OFFLINE_THRESHOLD_SECONDS;
  const cameOnline = stale(old?.idle) || (status === 'active' && stale(old?.active));
  const recent = (at: number | null | undefined) => at != null && now - at < MIN_WRITE_INTERVAL_SECONDS;
  if (!cameOnline && recent(old?.idle) && (status === 'idle' || recent(old?.active))) return { reply: null };
  const row: PresenceRow = {
    active: status === 'active' ? now : (old?.active ?? null),
    idle: now,
    updateId: (state.lastPresenceId ?? 0) + 1,
  };
  const events: RealmEvent[] = [{ type: 'presenceReported', userId, row }];
  // Only coming online is announced, and only in realms small enough (each announcement reaches everyone,
  // and everyone comes online: quadratic work); clients learn the rest by polling, as with the original.
  if (!cameOnline || activeUsers(state) > command.event_user_limit) return { events, reply: null };
  const event = presenceEvent({
    user_id: userId,
    email: apiEmailOf(account),
    server_timestamp: ctx.now / 1000,
    presence: { website: legacyEntry(row, account).website },
    presences: { [userId]: modernPresence(row, account) },
  });
  return { events, fanouts: [toEveryone(state, [event])], reply: null };
}

function presences(ctx: Ctx, query: Extract<OwnCommand, { type: 'realm.presences' }>): PresenceReply {
  const now = Math.floor(ctx.now / 1000);
  const since = now - (query.history_limit_days ?? DEFAULT_HISTORY_DAYS) * 24 * 3600;
  const after = query.last_update_id;
  const rows = visibleRows(ctx.state).filter(
    ([, row]) => (after === undefined || row.updateId > after) && ((after ?? 0) > 0 || row.idle >= since),
  );
  // Asking by update id always gets the modern format.
  const modern = query.slim || after !== undefined;
  const result: PresenceReply['presences'] = {};
  for (const [account, row] of rows) {
    if (modern) result[account.id] = modernPresence(row, account);
    else result[apiEmailOf(account)] = legacyEntry(row, account);
  }
  const newest = rows.reduce((max, [, row]) => Math.max(max, row.updateId), -1);
  return {
    presences: result,
    presence_last_update_id: rows.length > 0 ? newest : (after ?? -1),
    server_timestamp: ctx.now / 1000,
  };
}

function userPresence(ctx: Ctx, user: number | string) {
  const state = ctx.state;
  // By address: the API one, so a hidden real address names nobody (directory.ts).
  const account = typeof user === 'number' ? state.accounts[user] : byApiEmail(state, user);
  if (!account || (typeof user === 'string' && !account.isActive)) throw new ChatError('BAD_REQUEST', 'No such user');
  if (account.botType !== null) throw new ChatError('BAD_REQUEST', 'Presence is not supported for bot users.');
  const row = state.presence?.[account.id];
  if (!row || isInvisible(state, account.id)) {
    throw new ChatError('BAD_REQUEST', `No presence data for ${String(user)}`);
  }
  return legacyEntry(row, account);
}

/** Never reported active (joining does not count here), or invisible: not recently active. */
function recentlyActive(ctx: Ctx, days: number): number[] {
  const state = ctx.state;
  const since = Math.floor(ctx.now / 1000) - days * 24 * 3600;
  const active = (account: Account) => {
    if (account.botType !== null) return true;
    const at = state.presence?.[account.id]?.active;
    return at != null && at >= since && !isInvisible(state, account.id);
  };
  return Object.values(state.accounts)
    .filter((account) => account.isActive && active(account))
    .map((account) => account.id);
}

export const presenceHandlers: RealmHandlers<Pick<StatusProtocol, OwnCommand['type']>> = {
  'realm.reportPresence': (ctx, command) => {
    return report(ctx, command);
  },
  'realm.presences': (ctx, command) => {
    return { reply: presences(ctx, command) };
  },
  'realm.recentlyActive': (ctx, command) => {
    return { reply: recentlyActive(ctx, command.days) };
  },
  'realm.userPresence': (ctx, command) => {
    return { reply: userPresence(ctx, command.user) };
  },
};

export function applyPresenceEvent(state: RealmState, event: PresenceEvent): void {
  (state.presence ??= {})[event.userId] = event.row;
  state.lastPresenceId = Math.max(state.lastPresenceId ?? 0, event.row.updateId);
}
