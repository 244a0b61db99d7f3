import { setTopicPolicy } from './muted-topics.js';
import { Type, type Static } from '@sinclair/typebox';
import { defineRoute, type Route } from '@chat/edge';
import {
  ChatError,
  channelAddress,
  CHANNEL_PERMISSIONS,
  type ChannelChanges,
  type ChannelInfo,
  type ChannelPermission,
} from '@chat/protocol';
import { CallerContext } from '../context.js';
import { checkDescription, LIMITS, normalizeTopic } from '../limits.js';
import { renderDescription } from '../markdown.js';
import { channelRetention } from './create.js';
import { canonicalGroupSetting, checkChannelPermissions, checkTopicsPolicy, GroupSettingValue } from './permissions.js';
import type { ApiOptions } from '../options.js';

const GroupSettingUpdate = Type.Optional(
  Type.Object({ new: GroupSettingValue, old: Type.Optional(GroupSettingValue) }),
);
const permissionParams = Object.fromEntries(CHANNEL_PERMISSIONS.map((name) => [name, GroupSettingUpdate])) as Record<
  (typeof CHANNEL_PERMISSIONS)[number],
  typeof GroupSettingUpdate
>;

const UpdateParams = Type.Object({
  stream_id: Type.Integer(),
  description: Type.Optional(Type.String()),
  new_name: Type.Optional(Type.String()),
  is_private: Type.Optional(Type.Boolean()),
  is_web_public: Type.Optional(Type.Boolean()),
  history_public_to_subscribers: Type.Optional(Type.Boolean()),
  is_default_stream: Type.Optional(Type.Boolean()),
  message_retention_days: Type.Optional(Type.Union([Type.Integer(), Type.String()])),
  is_archived: Type.Optional(Type.Boolean()),
  folder_id: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
  topics_policy: Type.Optional(
    Type.Union(['inherit', 'allow_empty_topic', 'disable_empty_topic', 'empty_topic_only'].map((v) => Type.Literal(v))),
  ),
  ...permissionParams,
});

/** The privacy fields, settled together as one change (the original's do_change_stream_permission). */
const PRIVACY = ['invite_only', 'is_web_public', 'history_public_to_subscribers'] as const;

function changesOf(params: Static<typeof UpdateParams>): ChannelChanges {
  const changes: ChannelChanges = {};
  if (params.new_name !== undefined) changes.name = params.new_name.trim();
  if (params.description !== undefined) {
    changes.description = checkDescription(params.description);
    changes.rendered_description = renderDescription(params.description);
  }
  if (params.is_private !== undefined) changes.invite_only = params.is_private;
  if (params.is_web_public !== undefined) changes.is_web_public = params.is_web_public;
  if (params.history_public_to_subscribers !== undefined) {
    changes.history_public_to_subscribers = params.history_public_to_subscribers;
  }
  if (params.is_archived !== undefined) changes.is_archived = params.is_archived;
  if (params.folder_id !== undefined) changes.folder_id = params.folder_id;
  if (params.topics_policy !== undefined)
    changes.topics_policy = params.topics_policy as ChannelChanges['topics_policy'];
  const permissions = Object.fromEntries(CHANNEL_PERMISSIONS.filter((n) => params[n]).map((n) => [n, params[n]!]));
  if (Object.keys(permissions).length > 0) changes.permissions = permissions;
  return changes;
}

export function channelAdminRoutes(options: ApiOptions): Route[] {
  return [
    defineRoute({
      method: 'PATCH',
      path: '/streams/{stream_id}',
      auth: 'required',
      params: UpdateParams,
      summary: 'Update a channel',
      description: "Changes a channel's name, description, privacy, topics policy or permissions.",
      tags: ['channels'],
      async handler({ params, principal, actors }) {
        const caller = new CallerContext(actors, principal);
        const settings = await caller.settings();
        const changes = changesOf(params);
        for (const change of Object.values(changes.permissions ?? {})) {
          change.new = canonicalGroupSetting(change.new);
          if (change.old !== undefined) change.old = canonicalGroupSetting(change.old);
        }
        const address = channelAddress(principal.realm, params.stream_id);
        const { settings: options } = await actors.ask(caller.realm, { type: 'realm.organization' });
        const moderation = options.moderation_request_channel_id === params.stream_id;
        const update = (step: ChannelChanges, dry_run: boolean) =>
          actors.ask(address, {
            type: 'channel.update',
            actor: principal,
            changes: step,
            settings,
            ...(moderation ? { moderation_request_channel: true } : {}),
            dry_run,
          });
        // Refused before any change, as in the original's update_stream_backend: who may not administer the
        // channel, an archived channel, and a privacy that does not hold together. The topics policy and the
        // group settings are checked at their turn.
        const { topics_policy: _policy, permissions: _permissions, ...first } = changes;
        await update(first, true);
        if (params.is_default_stream !== undefined || changes.invite_only === true) {
          const defaults = await actors.ask(caller.realm, { type: 'realm.defaultChannels' });
          const isDefault = params.is_default_stream ?? defaults.includes(params.stream_id);
          const isPrivate = changes.invite_only ?? (await caller.channelInfo(params.stream_id)).invite_only;
          if (isDefault && isPrivate) throw new ChatError('BAD_REQUEST', 'A default channel cannot be private.');
        }
        // Then one setting after another in the original's order (the default channels are the realm's), each applied before the next is checked:
        // a refusal keeps the settings before it.
        const privacy = PRIVACY.filter((name) => changes[name] !== undefined);
        if (privacy.length > 0) await update(Object.fromEntries(privacy.map((name) => [name, changes[name]])), false);
        if (params.is_default_stream !== undefined) {
          const is_default = params.is_default_stream;
          const channel_id = params.stream_id;
          await actors.ask(caller.realm, {
            type: 'realm.setDefaultChannel',
            actor_id: principal.user_id,
            channel_id,
            is_default,
          });
        }
        if (params.message_retention_days !== undefined) {
          const days = channelRetention(principal, params.message_retention_days);
          await update({ message_retention_days: days }, false);
        }
        if (changes.is_archived === false) await update({ is_archived: false }, false);
        if (changes.topics_policy !== undefined) {
          await checkTopicsPolicy(caller);
          await update({ topics_policy: changes.topics_policy }, false);
        }
        if (changes.description !== undefined) {
          const { description, rendered_description } = changes;
          await update({ description, rendered_description }, false);
        }
        if (changes.name !== undefined) {
          if (changes.name === '' || [...changes.name].length > LIMITS.max_stream_name_length) {
            throw new ChatError('BAD_REQUEST', `Invalid channel name '${changes.name}'`);
          }
          await actors.ask(caller.realm, {
            type: 'realm.renameChannel',
            channel_id: params.stream_id,
            name: changes.name,
          });
          await update({ name: changes.name }, false);
        }
        if (changes.folder_id !== undefined) {
          // The realm refuses an unknown folder.
          if (changes.folder_id !== null)
            await actors.ask(caller.realm, { type: 'realm.findChannelFolder', folder_id: changes.folder_id });
          await update({ folder_id: changes.folder_id }, false);
        }
        // Each group setting: its 'old' value and content access (the channel), then the group (the realm).
        for (const [name, change] of Object.entries(changes.permissions ?? {}).sort(([a], [b]) => a.localeCompare(b))) {
          await update({ permissions: { [name]: change } }, true);
          const checked = await checkChannelPermissions(caller, { [name]: change.new });
          await update(
            { permissions: { [name]: { ...change, new: checked[name as ChannelPermission] ?? change.new } } },
            false,
          );
        }
        return {};
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/streams/{stream_id}',
      auth: 'required',
      params: Type.Object({ stream_id: Type.Integer() }),
      summary: 'Archive a channel',
      description: 'Archives a channel: it keeps its messages but takes no new ones. Channel administrators only.',
      tags: ['channels'],
      async handler({ params, principal, actors }) {
        const settings = await new CallerContext(actors, principal).settings();
        const changes: ChannelChanges = { is_archived: true };
        await actors.ask(channelAddress(principal.realm, params.stream_id), {
          type: 'channel.update',
          actor: principal,
          changes,
          settings,
          dry_run: false,
          archive: true,
        });
        return {};
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/streams/{stream_id}/delete_topic',
      auth: 'required',
      params: Type.Object({ stream_id: Type.Integer(), topic_name: Type.String() }),
      summary: 'Delete a topic',
      description: "Deletes a topic's messages, newest first, in batches; `complete` is false when time ran out.",
      tags: ['channels'],
      response: Type.Object({ complete: Type.Boolean() }),
      async handler({ params, principal, actors }) {
        const settings = await new CallerContext(actors, principal).settings();
        const topic = normalizeTopic(params.topic_name, settings);
        const address = channelAddress(principal.realm, params.stream_id);
        const deadline = Date.now() + options.topicDeleteBudgetMs;
        for (;;) {
          const { complete } = await actors.ask(address, {
            type: 'topic.delete',
            actor: principal,
            topic,
            batch: 100,
          });
          if (complete) return { complete: true };
          if (Date.now() >= deadline) return { complete: false };
        }
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/user_topics',
      auth: 'required',
      params: Type.Object({
        stream_id: Type.Integer(),
        topic: Type.String(),
        visibility_policy: Type.Union([0, 1, 2, 3].map((v) => Type.Literal(v))),
      }),
      summary: 'Update personal preferences for a topic',
      description: 'Mutes, unmutes or follows a topic for the caller.',
      tags: ['channels'],
      async handler({ params, principal, actors }) {
        const caller = new CallerContext(actors, principal);
        const topic = normalizeTopic(params.topic, await caller.settings());
        const info: ChannelInfo = await caller.channelInfo(params.stream_id);
        await setTopicPolicy(caller, info.stream_id, topic, params.visibility_policy);
        return {};
      },
    }),
  ];
}
