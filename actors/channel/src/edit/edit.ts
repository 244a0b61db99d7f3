import { createHash } from 'node:crypto';
import { RESOLVED_TOPIC_PREFIX } from '@chat/narrow';
import {
  ChatError,
  inGroupSetting,
  mayMoveAfterTimeLimit,
  type ChannelCommand,
  type MessageEdit,
  type StoredMessage,
} from '@chat/protocol';
import type { ActorContext } from '@chat/runtime';
import { can, canSee, invalidMessage, requireMessageAccess, type Actor } from '../access.js';
import { editEvent } from './event.js';
import { fanout } from '../events.js';
import { editAudience } from '../holders.js';
import { checkTopic, checkWildcards } from '../send.js';
import { findMessage, type ChannelEvent, type ChannelState, type ChannelDecision } from '../state.js';

type Edit = Extract<ChannelCommand, { type: 'message.edit' }>;
const bad = (msg: string) => new ChatError('BAD_REQUEST', msg);

const unresolved = (topic: string) =>
  topic.startsWith(RESOLVED_TOPIC_PREFIX) ? topic.slice(RESOLVED_TOPIC_PREFIX.length) : topic;

/** A topic change that only adds or removes the resolved mark. */
export function isResolveOnly(from: string, to: string): boolean {
  return (
    from !== to &&
    unresolved(from) === unresolved(to) &&
    from.startsWith(RESOLVED_TOPIC_PREFIX) !== to.startsWith(RESOLVED_TOPIC_PREFIX)
  );
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

function checkContentEdit(state: ChannelState, cmd: Edit, target: StoredMessage, now: number): void {
  if (cmd.prev_content_sha256 !== undefined && cmd.prev_content_sha256.toLowerCase() !== sha256(target.content)) {
    throw bad("'prev_content_sha256' value does not match the expected value.");
  }
  if (!cmd.settings.allow_message_editing) throw bad('Your organization has turned off message editing');
  if (target.sender_id !== cmd.actor.user_id) throw bad("You don't have permission to edit this message");
  const limit = cmd.settings.message_content_edit_limit_seconds;
  if (limit !== null && now / 1000 - target.timestamp > limit) {
    throw bad('The time limit for editing this message has passed');
  }
  checkWildcards(state, { ...cmd, sender: cmd.actor, topic: target.topic }, cmd.prepared!);
}

/** Which messages a topic change moves, before time limits. */
function selectMoved(state: ChannelState, cmd: Edit, target: StoredMessage): StoredMessage[] {
  if (cmd.propagate_mode === 'change_one') return [target];
  const topic = target.topic.toLowerCase();
  return state.messages.filter(
    (m) =>
      m.topic.toLowerCase() === topic &&
      (cmd.propagate_mode === 'change_all' || m.id >= target.id) &&
      canSee(state, cmd.actor, m),
  );
}

function checkMove(state: ChannelState, cmd: Edit, target: StoredMessage, topic: string, now: number): StoredMessage[] {
  if (state.kind !== 'channel') throw bad('Direct messages cannot have topics.');
  const actor: Actor = cmd.actor;
  const resolving = isResolveOnly(target.topic, topic);
  if (resolving) {
    if (unresolved(topic) === '') throw bad('General chat cannot be marked as resolved');
    if (
      !inGroupSetting(cmd.settings.can_resolve_topics_group, actor) &&
      !can(state, 'can_resolve_topics_group', actor)
    ) {
      throw bad("You don't have permission to resolve topics in this channel.");
    }
  } else {
    const allowed =
      inGroupSetting(cmd.settings.can_move_messages_between_topics_group, actor) ||
      can(state, 'can_move_messages_within_channel_group', actor);
    if (!allowed) throw bad("You don't have permission to edit this message");
    checkTopic(state, topic, cmd.settings);
  }
  const moved = selectMoved(state, cmd, target);
  const limit = cmd.settings.move_messages_within_stream_limit_seconds;
  if (resolving || mayMoveAfterTimeLimit(actor) || limit === null) return moved;
  const inTime = moved.filter((m) => now / 1000 - m.timestamp <= limit);
  if (inTime.length === moved.length) return moved;
  if (cmd.propagate_mode === 'change_one') throw bad("The time limit for editing this message's topic has passed.");
  throw new ChatError(
    'MOVE_MESSAGES_TIME_LIMIT_EXCEEDED',
    `You only have permission to move the ${inTime.length}/${moved.length} most recent messages in this topic.`,
    {
      first_message_id_allowed_to_move: inTime[0]?.id ?? null,
      total_messages_in_topic: moved.length,
      total_messages_allowed_to_move: inTime.length,
    },
  );
}

export function decideEdit(ctx: ActorContext<ChannelState>, cmd: Edit): ChannelDecision<'message.edit'> {
  const state = ctx.state;
  requireMessageAccess(state, cmd.actor);
  const target = findMessage(state, cmd.message_id);
  if (!target || !canSee(state, cmd.actor, target)) throw invalidMessage();
  const topicChange = cmd.topic !== undefined && cmd.topic !== target.topic ? cmd.topic : undefined;
  if (cmd.propagate_mode !== 'change_one' && topicChange === undefined && cmd.topic === undefined) {
    throw bad('Invalid propagate_mode without topic edit');
  }
  if (cmd.prepared) checkContentEdit(state, cmd, target, ctx.now);
  const moved = topicChange !== undefined ? checkMove(state, cmd, target, topicChange, ctx.now) : [];
  const at = Math.floor(ctx.now / 1000);
  const events: ChannelEvent[] = [];
  if (cmd.prepared) {
    const { content, rendered, mentioned_human_ids: _, ...facts } = cmd.prepared;
    const edit: MessageEdit = {
      timestamp: at,
      user_id: cmd.actor.user_id,
      prev_content: target.content,
      prev_rendered_content: target.rendered,
    };
    events.push({ type: 'messagesEdited', ids: [target.id], edit, content: { content, rendered, ...facts }, at });
  }
  if (topicChange !== undefined && moved.length > 0) {
    const edit: MessageEdit = {
      timestamp: at,
      user_id: cmd.actor.user_id,
      prev_topic: target.topic,
      topic: topicChange,
    };
    events.push({ type: 'messagesEdited', ids: moved.map((m) => m.id), edit, topic: topicChange, at });
  }
  const detached = cmd.prepared ? target.upload_paths.filter((path) => !cmd.prepared!.upload_paths.includes(path)) : [];
  const movedIds = moved.map((m) => m.id);
  const event = editEvent(state, ctx.address.key, {
    actor_id: cmd.actor.user_id,
    at,
    target,
    ...(cmd.prepared ? { prepared: cmd.prepared } : {}),
    ...(topicChange !== undefined ? { topic: topicChange } : {}),
    moved: movedIds,
    propagate_mode: cmd.propagate_mode,
  });
  // As the original: who has the edited message, every subscriber with shared history, and the editor.
  const to = [...new Set([...editAudience(state, ctx.address.key, target), cmd.actor.user_id])];
  return {
    events,
    fanouts: events.length > 0 ? [fanout(ctx.address.key, to, [event])] : [],
    reply: {
      moved_ids: movedIds,
      old_topic: target.topic,
      resolved: topicChange !== undefined ? isResolveOnly(target.topic, topicChange) : false,
      detached_upload_paths: detached,
    },
  };
}
