import { RESOLVED_TOPIC_PREFIX } from '@chat/narrow';
import {
  ChatError,
  inGroupSetting,
  mayAdministerChannel,
  mayMoveAfterTimeLimit,
  mayReadChannel,
  type ChannelInfo,
  type ChannelSettings,
  type MoveCommand,
  type StoredMessage,
} from '@chat/protocol';
import { invalidChannel, type Actor } from '../access.js';
import { isResolveOnly } from '../edit/edit.js';
import { checkTopic } from '../send.js';
import type { ChannelState } from '../state.js';

/**
 * The original's permission rules for moving messages to another channel,
 * checked in its order, against the source's state and the destination as
 * the mover saw it.
 */
export type MoveOut = Extract<MoveCommand, { type: 'message.moveOut' }>;

const bad = (msg: string) => new ChatError('BAD_REQUEST', msg);

/** The original allows 20 s past each limit: a request sent just in time still counts. */
const GRACE_SECONDS = 20;

const tooOld = (m: StoredMessage, limit: number, now: number) => now / 1000 - m.timestamp > limit + GRACE_SECONDS;

const canMoveWithin = (channel: ChannelSettings, who: Actor) =>
  mayAdministerChannel(who, channel) || inGroupSetting(channel.can_move_messages_within_channel_group, who);

/** A destination the mover cannot reach (or an archived one) is "Invalid channel ID", as if it did not exist. */
export function checkDestination(target: ChannelInfo, cmd: MoveOut, topic: string): void {
  const who = cmd.actor;
  const reachable = mayReadChannel(who, target, target.subscribers.includes(who.user_id));
  if (target.is_archived || !reachable) throw invalidChannel();
  const asState: ChannelState = {
    kind: 'channel',
    channel: target,
    members: target.subscribers,
    joinedAfter: {},
    messages: [],
  };
  checkTopic(asState, topic, cmd.settings);
}

/** A topic change along with the move: resolving needs the resolve permission, renaming the move-within one. */
export function checkTopicChange(
  state: ChannelState,
  cmd: MoveOut,
  message: StoredMessage,
  topic: string,
  now: number,
) {
  const who = cmd.actor;
  const [source, target] = [state.channel!, cmd.target];
  if (isResolveOnly(message.topic, topic)) {
    if (topic.slice(RESOLVED_TOPIC_PREFIX.length) === '') throw bad('General chat cannot be marked as resolved');
    const allowed =
      inGroupSetting(cmd.settings.can_resolve_topics_group, who) ||
      inGroupSetting(source.can_resolve_topics_group, who) ||
      inGroupSetting(target.can_resolve_topics_group, who);
    if (!allowed) throw bad("You don't have permission to resolve topics in this channel.");
    return;
  }
  const allowed =
    inGroupSetting(cmd.settings.can_move_messages_between_topics_group, who) ||
    canMoveWithin(source, who) ||
    canMoveWithin(target, who);
  if (!allowed) throw bad("You don't have permission to edit this message");
  const limit = cmd.settings.move_messages_within_stream_limit_seconds;
  if (limit !== null && !mayMoveAfterTimeLimit(who) && tooOld(message, limit, now)) {
    throw bad("The time limit for editing this message's topic has passed.");
  }
}

/** Taking messages out of this channel, and posting them in the destination. */
export function checkChannelChange(state: ChannelState, cmd: MoveOut, message: StoredMessage, now: number) {
  const who = cmd.actor;
  const source = state.channel!;
  const allowed =
    inGroupSetting(cmd.settings.can_move_messages_between_channels_group, who) ||
    mayAdministerChannel(who, source) ||
    inGroupSetting(source.can_move_messages_out_of_channel_group, who);
  if (!allowed) throw bad("You don't have permission to move this message");
  if (!inGroupSetting(cmd.target.can_send_message_group, who)) {
    throw bad('You do not have permission to post in this channel.');
  }
  const limit = cmd.settings.move_messages_between_streams_limit_seconds;
  if (limit !== null && !mayMoveAfterTimeLimit(who) && tooOld(message, limit, now)) {
    throw bad("The time limit for editing this message's channel has passed");
  }
}

/**
 * With `change_all`, every message of the topic must be within the limits
 * (the stricter one when the topic changes too); the error says how many
 * of the most recent ones the mover may move, so a client can offer that.
 */
export function checkWholeTopic(cmd: MoveOut, inTopic: StoredMessage[], topicChanged: boolean, now: number): void {
  if (cmd.propagate_mode !== 'change_all' || mayMoveAfterTimeLimit(cmd.actor)) return;
  const limits = [cmd.settings.move_messages_between_streams_limit_seconds];
  if (topicChanged) limits.push(cmd.settings.move_messages_within_stream_limit_seconds);
  const set = limits.filter((l): l is number => l !== null);
  if (set.length === 0) return;
  const limit = Math.min(...set);
  const allowed = inTopic.filter((m) => !tooOld(m, limit, now));
  if (allowed.length === inTopic.length) return;
  throw new ChatError(
    'MOVE_MESSAGES_TIME_LIMIT_EXCEEDED',
    `You only have permission to move the ${allowed.length}/${inTopic.length} most recent messages in this topic.`,
    {
      first_message_id_allowed_to_move: allowed[0]?.id ?? null,
      total_messages_in_topic: inTopic.length,
      total_messages_allowed_to_move: allowed.length,
    },
  );
}
