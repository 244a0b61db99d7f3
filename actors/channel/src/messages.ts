import { ChatError, inGroupSetting, mayDeleteTopic, reactionEvent, ROLES, type ChannelCommand } from '@chat/protocol';
import type { ActorContext } from '@chat/runtime';
import { can, canSee, invalidMessage, requireContentAccess, requireMessageAccess } from './access.js';
import { deleteEvent, fanout, receivers, topicActivity } from './events.js';
import { holds, holdersOf, holdsApart } from './holders.js';
import { toUsers } from './members.js';
import { findMessage, type ChannelState, type ChannelDecision } from './state.js';

type Of<T extends ChannelCommand['type']> = Extract<ChannelCommand, { type: T }>;
type Ctx = ActorContext<ChannelState>;

export function decideDelete(ctx: Ctx, cmd: Of<'message.delete'>): ChannelDecision<'message.delete'> {
  const state = ctx.state;
  requireMessageAccess(state, cmd.actor);
  const message = findMessage(state, cmd.message_id);
  if (!message || !canSee(state, cmd.actor, message)) throw invalidMessage();
  const anyMessage =
    inGroupSetting(cmd.settings.can_delete_any_message_group, cmd.actor) ||
    can(state, 'can_delete_any_message_group', cmd.actor);
  const ownMessage =
    message.sender_id === cmd.actor.user_id &&
    (inGroupSetting(cmd.settings.can_delete_own_message_group, cmd.actor) ||
      can(state, 'can_delete_own_message_group', cmd.actor));
  if (!anyMessage && !ownMessage)
    throw new ChatError('BAD_REQUEST', "You don't have permission to delete this message");
  // Older senders of this command carry no limit: no limit then.
  const limit = cmd.settings.message_content_delete_limit_seconds ?? null;
  if (!anyMessage && limit !== null && ctx.now / 1000 - message.timestamp > limit) {
    throw new ChatError('BAD_REQUEST', 'The time limit for deleting this message has passed');
  }
  const to = receivers(state, ctx.address.key, [message], cmd.actor.user_id);
  return {
    events: [{ type: 'messagesRemoved', ids: [message.id] }],
    fanouts: [fanout(ctx.address.key, to, [deleteEvent(state, [message])])],
    reply: { topic: message.topic },
  };
}

/** Deletes up to `batch` of the topic's newest messages; `complete` once none remain. */
export function decideTopicDelete(ctx: Ctx, cmd: Of<'topic.delete'>): ChannelDecision<'topic.delete'> {
  const state = ctx.state;
  requireContentAccess(state, cmd.actor);
  if (!mayDeleteTopic(cmd.actor)) {
    throw new ChatError('UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');
  }
  const topic = cmd.topic.toLowerCase();
  const inTopic = state.messages.filter((m) => m.topic.toLowerCase() === topic && canSee(state, cmd.actor, m));
  const batch = inTopic.slice(-cmd.batch);
  const ids = batch.map((m) => m.id);
  const complete = ids.length === inTopic.length;
  if (ids.length === 0) return { reply: { complete, deleted: [] } };
  const to = receivers(state, ctx.address.key, batch, cmd.actor.user_id);
  return {
    events: [{ type: 'messagesRemoved', ids }],
    fanouts: [fanout(ctx.address.key, to, [deleteEvent(state, batch)])],
    reply: { complete, deleted: ids },
  };
}

export function decideReaction(
  ctx: Ctx,
  cmd: Of<'reaction.add' | 'reaction.remove'>,
): ChannelDecision<'reaction.add' | 'reaction.remove'> {
  const state = ctx.state;
  requireMessageAccess(state, cmd.actor);
  const message = findMessage(state, cmd.message_id);
  if (!message || !canSee(state, cmd.actor, message)) throw invalidMessage();
  const asked = cmd.reaction;
  const found = message.reactions.find(
    (x) => x.user_id === asked.user_id && x.emoji_code === asked.emoji_code && x.reaction_type === asked.reaction_type,
  );
  const exists = found !== undefined;
  const add = cmd.type === 'reaction.add';
  // A removal may name the reaction by code alone: the event names it as it was added.
  const r = add || !found ? asked : found;
  if (add && exists) throw new ChatError('REACTION_ALREADY_EXISTS', 'Reaction already exists.');
  if (!add && !exists) throw new ChatError('REACTION_DOES_NOT_EXIST', "Reaction doesn't exist.");
  const event = reactionEvent(add ? 'add' : 'remove', message.id, r, cmd.actor);
  const to = receivers(state, ctx.address.key, [message], cmd.actor.user_id);
  // Reacting is taking part in the topic (bots never follow topics).
  const participant = add && !cmd.actor.is_bot ? [cmd.actor.user_id] : [];
  // Reacting to a channel message one does not have gives it (a historical row, read): see holders.ts.
  const given = add && state.kind === 'channel' && !holds(state, cmd.actor.user_id, message);
  const guest = given && cmd.actor.role === ROLES.guest;
  const historical = given
    ? [
        toUsers(ctx.address.key, [cmd.actor.user_id], {
          type: 'user.historical',
          key: ctx.address.key,
          message_id: message.id,
        }),
      ]
    : [];
  const row = guest ? [{ type: 'historicalGiven' as const, userId: cmd.actor.user_id, ids: [message.id], guest }] : [];
  return {
    events: [...row, { type: add ? 'reactionAdded' : 'reactionRemoved', id: message.id, reaction: r }],
    fanouts: [
      fanout(ctx.address.key, to, [event]),
      ...topicActivity(state, ctx.address.key, participant, message.topic, 'participated'),
      ...historical,
    ],
    reply: null,
  };
}

/** Topics with their newest visible message, newest first. */
export function decideTopics(ctx: Ctx, cmd: Of<'topic.list'>): ChannelDecision<'topic.list'> {
  const state = ctx.state;
  requireContentAccess(state, cmd.viewer);
  const newest = new Map<string, { name: string; max_id: number }>();
  for (const m of state.messages) {
    if (!canSee(state, cmd.viewer, m)) continue;
    newest.set(m.topic.toLowerCase(), { name: m.topic, max_id: m.id });
  }
  return { reply: [...newest.values()].sort((a, b) => b.max_id - a.max_id) };
}

/** Who has a message the actor may see (for read receipts): see holders.ts. */
export function decideHolders(ctx: Ctx, cmd: Of<'message.holders'>): ChannelDecision<'message.holders'> {
  const state = ctx.state;
  requireMessageAccess(state, cmd.actor);
  const message = findMessage(state, cmd.message_id);
  if (!message || !canSee(state, cmd.actor, message)) throw invalidMessage();
  return { reply: holdersOf(state, ctx.address.key, message) };
}

/** Historical rows for messages the actor stars or marks unread without having them: see holders.ts. */
export function decideHistorical(ctx: Ctx, cmd: Of<'message.historical'>): ChannelDecision<'message.historical'> {
  const state = ctx.state;
  requireMessageAccess(state, cmd.actor);
  const me = cmd.actor.user_id;
  const ids = cmd.message_ids.filter((id) => {
    const message = findMessage(state, id);
    return message !== undefined && canSee(state, cmd.actor, message) && !holds(state, me, message);
  });
  if (state.kind !== 'channel' || ids.length === 0) return { reply: [] };
  const guest = cmd.actor.role === ROLES.guest ? { guest: true } : {};
  return { events: [{ type: 'historicalGiven', userId: me, ids, ...guest }], reply: ids };
}

/**
 * A role change of someone who left the channel or has historical rows
 * here: whether they are a guest decides if a public channel's reactions
 * and deletions reach them, as the original asks their role at the time.
 */
export function decideGuestRole(ctx: Ctx, cmd: Of<'channel.guestRole'>): ChannelDecision<'channel.guestRole'> {
  const state = ctx.state;
  const known = (state.heldByGuests ?? []).includes(cmd.user_id);
  if (state.kind !== 'channel' || !holdsApart(state, cmd.user_id) || known === cmd.guest) return { reply: null };
  return { events: [{ type: 'guestChanged', userId: cmd.user_id, guest: cmd.guest }], reply: null };
}
