import { randomUUID } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { defineRoute, type Route } from '@chat/edge';
import { conversationAddress, isMessageEvent, queueAddress, realmAddress, type QueueSpec } from '@chat/protocol';
import { CallerContext } from '../../context.js';
import { narrowTerms } from '../../messages/fetch.js';
import { checkEventsNarrow } from './narrow.js';
import type { ApiOptions } from '../../options.js';
import { ReadPositions } from './reads.js';
import { Snapshot } from './snapshot.js';
import { spectatorRegister } from './spectator.js';
import { addQueue, checkAllPublic } from './all-public.js';

/** The capabilities that change what this server sends. */
const CAPABILITIES = [
  'notification_settings_null',
  'bulk_message_deletion',
  'user_avatar_url_field_optional',
  'stream_typing_notifications',
  'user_settings_object',
  'linkifier_url_template',
  'user_list_incomplete',
  'include_deactivated_groups',
  'archived_channels',
  'empty_topic_name',
  'simplified_presence_events',
] as const;

const Strings = Type.Array(Type.String());

export function registerRoutes(options: ApiOptions): Route[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/register',
      auth: 'optional',
      params: Type.Object({
        apply_markdown: Type.Optional(Type.Boolean({ default: false })),
        client_gravatar: Type.Optional(
          Type.Boolean({ description: 'Defaults to true, and to false without credentials (where true is an error).' }),
        ),
        include_subscribers: Type.Optional(Type.Union([Type.Boolean(), Type.Literal('partial')], { default: false })),
        slim_presence: Type.Optional(Type.Boolean({ default: false })),
        presence_history_limit_days: Type.Optional(Type.Integer()),
        event_types: Type.Optional(Strings),
        all_public_streams: Type.Optional(Type.Boolean({ default: false })),
        client_capabilities: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
        fetch_event_types: Type.Optional(Strings),
        narrow: Type.Optional(Type.Array(Type.Unknown(), { default: [] })),
      }),
      summary: 'Register an event queue',
      description: 'Creates an event queue and returns the state the client starts from.',
      tags: ['real_time_events'],
      async handler({ params, principal, actors, request }) {
        const fetchTypes = params.fetch_event_types ?? params.event_types;
        const fetch = fetchTypes ? new Set(fetchTypes) : null;
        if (!principal)
          return spectatorRegister(actors, realmAddress(options.realmOf(request)), { ...params, fetch }, options);
        const caller = new CallerContext(actors, principal);
        checkAllPublic(principal, params.all_public_streams);
        const raw = params.client_capabilities ?? {};
        const capabilities = Object.fromEntries(CAPABILITIES.map((name) => [name, raw[name] === true]));
        const spec: QueueSpec = {
          user_id: principal.user_id,
          event_types: params.event_types ?? null,
          narrow: await narrowTerms(caller, checkEventsNarrow(params.narrow ?? [])),
          all_public_streams: params.all_public_streams ?? false,
          apply_markdown: params.apply_markdown ?? false,
          client_gravatar: params.client_gravatar ?? true,
          capabilities,
        };
        // The queue exists, and hears every change, before the snapshot is read:
        // a change is then in the snapshot, in the queue, or in both; the
        // queue drops those in both (`queue.cover`), so each reaches the
        // client once.
        const queueId = randomUUID();
        const queue = queueAddress(principal.realm, queueId);
        await actors.ask(queue, { type: 'queue.register', spec });
        await addQueue(actors, principal, queueId, spec.all_public_streams);
        const snapshot = new Snapshot({
          user_id: principal.user_id,
          fetch,
          client_gravatar: spec.client_gravatar,
          include_subscribers: params.include_subscribers ?? false,
          archived_channels: capabilities.archived_channels === true,
          notification_settings_null: capabilities.notification_settings_null === true,
          include_deactivated_groups: capabilities.include_deactivated_groups === true,
          linkifier_url_template: capabilities.linkifier_url_template === true,
          user_list_incomplete: capabilities.user_list_incomplete === true,
          people: {
            slim_presence: params.slim_presence ?? false,
            ...(params.presence_history_limit_days !== undefined
              ? { presence_history_limit_days: params.presence_history_limit_days }
              : {}),
            user_settings_object: capabilities.user_settings_object === true,
          },
        });
        const reads = new ReadPositions(actors);
        // Its sections read many of the same channels: each is asked once.
        const [, settings] = await Promise.all([
          snapshot.build(new CallerContext(reads.client, principal).rememberChannels(), options),
          caller.settings(),
        ]);
        for (const { section, actor, position } of snapshot.held) reads.note(section, actor, position);
        const dropped = await actors.ask(queue, {
          type: 'queue.cover',
          user_id: principal.user_id,
          through: reads.cover(snapshot.types),
          ...(snapshot.accessible ? { accessible: snapshot.accessible } : {}),
        });
        // Dropped because their conversation was read after them; the user's own list
        // of direct conversations may not have heard of them yet.
        for (const event of dropped.events) {
          if (!isMessageEvent(event)) continue;
          const m = event.message;
          const key = m.channel_id === null ? conversationAddress(principal.realm, m.dm_user_ids).key : '';
          snapshot.foldNewest(key, m.id);
        }
        return {
          queue_id: queueId,
          // What the queue still holds came after the snapshot: the client polls for all of it.
          last_event_id: -1,
          ...snapshot.finish(capabilities.empty_topic_name ? null : settings.empty_topic_display_name),
        };
      },
    }),
  ];
}
