import { Type } from '@sinclair/typebox';
import { defineRoute, type Route } from '@chat/edge';
import { ChatError, type PresenceEvent, type QueueSpec } from '@chat/protocol';
import { CallerContext } from '../context.js';
import { checkAccess, visiblePresences } from './access.js';
import type { ApiOptions } from '../options.js';

/** What clients are told in the register response; the realm uses the same threshold. */
export const PRESENCE_TIMING = {
  server_presence_ping_interval_seconds: 60,
  server_presence_offline_threshold_seconds: 140,
};

type Body = Record<string, unknown>;

/**
 * A `presence` event as one client sees it: the realm raises it with both
 * formats; clients with `simplified_presence_events` get the modern one only.
 */
export function presentPresence(event: PresenceEvent & { id: number }, spec: QueueSpec): Body {
  const { presences, user_id, email, server_timestamp, presence, ...rest } = event;
  return spec.capabilities.simplified_presence_events
    ? { ...rest, presences }
    : { ...rest, user_id, email, server_timestamp, presence };
}

const PresenceResponse = Type.Object({
  presences: Type.Record(Type.String(), Type.Unknown()),
  server_timestamp: Type.Number(),
});

export function presenceRoutes(options: ApiOptions): Route[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/users/me/presence',
      auth: 'required',
      params: Type.Object({
        status: Type.String({ description: '`active` or `idle`.' }),
        ping_only: Type.Optional(Type.Boolean({ default: false })),
        new_user_input: Type.Optional(Type.Boolean({ default: false })),
        slim_presence: Type.Optional(Type.Boolean({ default: false })),
        last_update_id: Type.Optional(Type.Integer({ description: 'Only presence changed after this id.' })),
        history_limit_days: Type.Optional(Type.Integer({ description: 'How far back to look; default 14 days.' })),
      }),
      summary: 'Update your presence',
      description: "Reports the caller's presence and answers everyone else's.",
      tags: ['users'],
      async handler({ params, principal, actors }) {
        const { status } = params;
        // The original's `human_users_only`: a bot has no presence to report.
        if (principal.is_bot) throw new ChatError('BAD_REQUEST', 'This endpoint does not accept bot requests.');
        if (status !== 'active' && status !== 'idle') throw new ChatError('BAD_REQUEST', `Invalid status: ${status}`);
        const caller = new CallerContext(actors, principal);
        await actors.ask(caller.realm, {
          type: 'realm.reportPresence',
          user_id: principal.user_id,
          status,
          event_user_limit: options.presenceEventUserLimit,
        });
        if (params.ping_only) return {};
        const reply = await actors.ask(caller.realm, {
          type: 'realm.presences',
          slim: params.slim_presence ?? false,
          ...(params.last_update_id !== undefined ? { last_update_id: params.last_update_id } : {}),
          ...(params.history_limit_days !== undefined ? { history_limit_days: params.history_limit_days } : {}),
        });
        return { ...reply, presences: await visiblePresences(caller, reply.presences) };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/realm/presence',
      auth: 'required',
      params: Type.Object({}),
      summary: 'Get presence of all users',
      description: 'Every user seen in the last two weeks, in the legacy format keyed by e-mail.',
      tags: ['server_and_organizations'],
      response: PresenceResponse,
      async handler({ principal, actors }) {
        const caller = new CallerContext(actors, principal);
        const reply = await actors.ask(caller.realm, { type: 'realm.presences', slim: false });
        return { presences: await visiblePresences(caller, reply.presences), server_timestamp: reply.server_timestamp };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/users/{user_id_or_email}/presence',
      auth: 'required',
      params: Type.Object({ user_id_or_email: Type.String({ description: 'A user id or e-mail address.' }) }),
      summary: "Get a user's presence",
      description: "One user's presence, `offline` when it is older than the offline threshold.",
      tags: ['users'],
      async handler({ params, principal, actors }) {
        const caller = new CallerContext(actors, principal);
        const raw = params.user_id_or_email;
        const user = /^\d+$/.test(raw) ? Number(raw) : raw;
        if (typeof user === 'number') await checkAccess(caller, user);
        else {
          const [found] = (await caller.resolve({ emails: [user] }).catch(() => ({ users: [] }))).users;
          if (found) await checkAccess(caller, found.user_id);
        }
        const entry = await actors.ask(caller.realm, {
          type: 'realm.userPresence',
          user,
        });
        const now = Date.now() / 1000;
        const presence = Object.fromEntries(
          Object.entries(entry).map(([client, p]) => {
            const offline =
              client === 'aggregated' && now - p.timestamp > PRESENCE_TIMING.server_presence_offline_threshold_seconds;
            return [client, { status: offline ? 'offline' : p.status, timestamp: p.timestamp }];
          }),
        );
        return { presence };
      },
    }),
  ];
}
