import {
  ChatError,
  EXPORT_FULL_WITH_CONSENT,
  EXPORT_PUBLIC,
  isAdministrator,
  notAdministrator,
  realmExportChanged,
  type ExportProtocol,
  type RealmExportJson,
} from '@chat/protocol';
import { toUsers } from './broadcast.js';
import type { RealmHandlers, RealmState } from './state.js';

/** One data export, as the realm keeps it. */
export interface ExportRecord {
  id: number;
  actingUserId: number;
  /** Seconds. */
  time: number;
  type: number;
  url: string | null;
  failedAt: number | null;
}

export type ExportEvent =
  | { type: 'exportRequested'; record: ExportRecord }
  | { type: 'exportDone'; id: number; url: string | null; at: number };

/**
 * An export still pending this long is taken as lost (the edge writing it
 * died: nothing resumes it) and marked failed the next time exports are
 * asked for or listed. My choice; the original says an export takes from
 * seconds to an hour.
 */
export const EXPORT_STALE_SECONDS = 6 * 3600;

/** The original's limit: five exports in any seven days. */
const EXPORT_LIMIT = 5;
const LIMIT_WINDOW_SECONDS = 7 * 24 * 3600;

export function applyExportEvent(state: RealmState, event: ExportEvent): void {
  const exports = (state.exports ??= {});
  if (event.type === 'exportRequested') {
    exports[event.record.id] = event.record;
    return;
  }
  const record = exports[event.id]!;
  if (event.url === null) record.failedAt = event.at;
  else record.url = event.url;
}

const json = (r: ExportRecord): RealmExportJson => ({
  id: r.id,
  acting_user_id: r.actingUserId,
  export_time: r.time,
  deleted_timestamp: null,
  failed_timestamp: r.failedAt,
  export_url: r.url,
  pending: r.url === null && r.failedAt === null,
  export_type: r.type,
});

const list = (state: RealmState) =>
  Object.values(state.exports ?? {})
    .sort((a, b) => a.id - b.id)
    .map(json);

/** Every administrator hears the whole list again (the original's notify_realm_export). */
function toAdministrators(state: RealmState, exports: RealmExportJson[]) {
  const admins = Object.values(state.accounts).filter((a) => a.isActive && isAdministrator(a) && a.botType === null);
  return toUsers(
    state,
    admins.map((a) => a.id),
    [realmExportChanged(exports)],
  );
}

/** Failure events for the exports pending longer than EXPORT_STALE_SECONDS. */
function staleExports(state: RealmState, now: number): Array<Extract<ExportEvent, { type: 'exportDone' }>> {
  return Object.values(state.exports ?? {})
    .filter((r) => r.url === null && r.failedAt === null && r.time < now - EXPORT_STALE_SECONDS)
    .map((r) => ({ type: 'exportDone', id: r.id, url: null, at: now }));
}

/** The list after these events, and the decision that records them and tells administrators. */
function withStale(state: RealmState, now: number) {
  const events = staleExports(state, now);
  const failed = new Set(events.map((e) => e.id));
  const exports = list(state).map((e) => (failed.has(e.id) ? { ...e, pending: false, failed_timestamp: now } : e));
  return { events, exports, fanouts: events.length > 0 ? [toAdministrators(state, exports)] : [] };
}

export const exportHandlers: RealmHandlers<ExportProtocol> = {
  'realm.requestExport': (ctx, command) => {
    const { actor, export_type } = command;
    const state = ctx.state;
    if (!isAdministrator(actor)) throw notAdministrator();
    if (export_type !== EXPORT_PUBLIC && export_type !== EXPORT_FULL_WITH_CONSENT) {
      throw new ChatError('BAD_REQUEST', 'Invalid export type.');
    }
    const now = ctx.now / 1000;
    const recent = Object.values(state.exports ?? {}).filter((r) => r.time >= now - LIMIT_WINDOW_SECONDS);
    if (recent.length >= EXPORT_LIMIT) throw new ChatError('BAD_REQUEST', 'Exceeded rate limit.');
    if (command.manual_export_from !== undefined) {
      throw new ChatError('BAD_REQUEST', `Please request a manual export from ${command.manual_export_from}.`);
    }
    const id = Math.max(0, ...Object.keys(state.exports ?? {}).map(Number)) + 1;
    const record: ExportRecord = {
      id,
      actingUserId: actor.user_id,
      time: now,
      type: export_type,
      url: null,
      failedAt: null,
    };
    const stale = withStale(state, now);
    const exports = [...stale.exports, json(record)];
    return {
      events: [...stale.events, { type: 'exportRequested', record }],
      reply: { id },
      fanouts: [toAdministrators(state, exports)],
    };
  },
  'realm.exportDone': (ctx, { id, url }) => {
    const state = ctx.state;
    const record = state.exports?.[id];
    // Done once: a second report (an edge retrying) changes nothing.
    if (!record || record.url !== null || record.failedAt !== null) return { reply: null };
    const at = ctx.now / 1000;
    const done = { ...record, ...(url === null ? { failedAt: at } : { url }) };
    const exports = list(state).map((e) => (e.id === id ? json(done) : e));
    return {
      events: [{ type: 'exportDone', id, url, at }],
      reply: null,
      fanouts: [toAdministrators(state, exports)],
    };
  },
  'realm.exports': (ctx, { viewer }) => {
    if (!isAdministrator(viewer)) throw notAdministrator();
    const { events, exports, fanouts } = withStale(ctx.state, ctx.now / 1000);
    return { events, reply: exports, fanouts };
  },
};
