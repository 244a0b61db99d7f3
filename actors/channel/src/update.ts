import {
  CHANNEL_PERMISSIONS,
  ChatError,
  type ChannelPermissions,
  inGroupSetting,
  realmOfKey,
  sameGroupSetting,
  type ChannelCommand,
  type ChannelSettings,
  type ChannelEntry,
  realmAddress,
} from '@chat/protocol';
import type { ActorContext } from '@chat/runtime';
import { canAdminister, hasContentAccess, invalidChannel, type Actor } from './access.js';
import { audience, fanout, toOnlookers } from './events.js';
import type { ChannelEvent, ChannelState, ChannelDecision } from './state.js';
import { streamUpdates } from './stream-events.js';

type Update = Extract<ChannelCommand, { type: 'channel.update' }>;
const bad = (msg: string) => new ChatError('BAD_REQUEST', msg);

/**
 * Who may administer a channel may change its settings with metadata access
 * alone, but for these (the original's
 * `stream_permission_group_settings_requiring_content_access`) and its privacy.
 */
const NEED_CONTENT_ACCESS = ['can_add_subscribers_group', 'can_subscribe_group'];
const NO_CONTENT = 'Channel content access is required.';

export function decideUpdate(ctx: ActorContext<ChannelState>, cmd: Update): ChannelDecision<'channel.update'> {
  const state = ctx.state;
  const actor: Actor = cmd.actor;
  if (state.kind !== 'channel' || !(hasContentAccess(state, actor) || canAdminister(state, actor))) {
    throw invalidChannel();
  }
  if (!canAdminister(state, actor)) throw bad('You do not have permission to administer this channel.');
  const channel = state.channel!;
  const changes = cmd.changes;
  const next: ChannelSettings = { ...channel, ...changes };
  if (changes.is_archived === true && !cmd.archive)
    throw bad('Channels can only be archived with the delete operation.');
  if (cmd.archive && channel.is_archived) throw bad(`Channel '${channel.name}' is already archived.`);
  const privacy = ['invite_only', 'history_public_to_subscribers', 'is_web_public', 'is_archived'];
  if (channel.is_archived && changes.is_archived !== false && Object.keys(changes).some((k) => !privacy.includes(k))) {
    throw bad(`Channel '${channel.name}' is archived.`);
  }
  if (cmd.moderation_request_channel && !(changes.invite_only ?? channel.invite_only)) {
    throw bad('A moderation request channel cannot be public.');
  }
  // The original asks for content access when the privacy is given, even by an administrator.
  if (changes.invite_only !== undefined) {
    if (!hasContentAccess(state, actor)) throw bad(NO_CONTENT);
    const creators = changes.invite_only
      ? cmd.settings.can_create_private_channel_group
      : cmd.settings.can_create_public_channel_group;
    if (!inGroupSetting(creators, actor)) throw bad('Insufficient permission');
  }
  if (changes.is_web_public) {
    if (
      !cmd.settings.enable_spectator_access ||
      !inGroupSetting(cmd.settings.can_create_web_public_channel_group, actor)
    ) {
      throw bad('Insufficient permission');
    }
    next.invite_only = false;
    next.history_public_to_subscribers = true;
  }
  if (changes.invite_only === true) next.is_web_public = changes.is_web_public ?? false;
  if (!next.invite_only && changes.history_public_to_subscribers === false) {
    throw bad('Invalid parameters: public channels must have public history.');
  }
  if (!next.invite_only) next.history_public_to_subscribers = true;
  if (changes.topics_policy === 'empty_topic_only' && state.messages.some((m) => m.topic !== '')) {
    throw bad(
      'To enable this configuration, all messages in this channel must be in the general chat topic. Consider renaming or deleting other topics.',
    );
  }
  const permissions = changes.permissions ?? {};
  for (const [name, change] of Object.entries(permissions)) {
    const current = channel[name as keyof typeof permissions];
    if (change.old !== undefined && !sameGroupSetting(change.old, current)) {
      throw bad(`'old' value does not match the expected value.`);
    }
    const changed = !sameGroupSetting(change.new, current);
    if (changed && NEED_CONTENT_ACCESS.includes(name) && !hasContentAccess(state, actor)) throw bad(NO_CONTENT);
  }
  const settled: ChannelEvent = {
    type: 'channelUpdated',
    changes: {
      ...changes,
      invite_only: next.invite_only,
      is_web_public: next.is_web_public,
      history_public_to_subscribers: next.history_public_to_subscribers,
    },
  };
  if (cmd.dry_run) return { reply: null };
  const news = Object.fromEntries(Object.entries(permissions).map(([name, change]) => [name, change.new]));
  const entry = directoryEntry({ ...next, ...news });
  const realm = realmAddress(realmOfKey(ctx.address.key));
  const updates = streamUpdates(channel, settled.changes);
  // Subscribers and the acting administrator directly, everyone else who sees the channel through the realm.
  const to = [...new Set([...audience(state, ctx.address.key), actor.user_id])];
  const onlookers = updates.length > 0 ? [toOnlookers(channel, ctx.address.key, updates, to)] : [];
  return {
    events: [settled],
    // The update first: who gains the channel by this change hears of it afterwards, in its `stream` create.
    tells: [...onlookers, { to: realm, body: { type: 'realm.channelChanged', entry } }],
    fanouts: updates.length > 0 ? [fanout(ctx.address.key, to, updates)] : [],
    reply: null,
  };
}

/** The channel as the realm's directory keeps it (`realm.channelChanged`). */
export function directoryEntry(channel: ChannelSettings): Omit<ChannelEntry, 'is_default'> {
  return {
    channel_id: channel.stream_id,
    name: channel.name,
    invite_only: channel.invite_only,
    is_web_public: channel.is_web_public,
    is_archived: channel.is_archived,
    folder_id: channel.folder_id,
    permissions: Object.fromEntries(CHANNEL_PERMISSIONS.map((name) => [name, channel[name]])) as ChannelPermissions,
  };
}
