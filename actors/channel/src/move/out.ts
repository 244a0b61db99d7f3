import {
  ChatError,
  channelAddress,
  realmOfKey,
  type ChannelMove,
  type MessageEdit,
  type MoveBegun,
  type MoveCommand,
  type StoredMessage,
  conversationOfKey,
} from '@chat/protocol';
import type { ActorContext, Decision } from '@chat/runtime';
import { canSee, invalidMessage, requireMessageAccess } from '../access.js';
import { isResolveOnly } from '../edit/edit.js';
import { outsidersOf, rowsOfEach } from '../holders.js';
import { checkChannelChange, checkDestination, checkTopicChange, checkWholeTopic, type MoveOut } from './checks.js';
import { firstMessageUpdate, moveFanouts } from './events.js';
import { findMessage, type ChannelEvent, type ChannelState, type ChannelDecision } from '../state.js';

type Ctx = ActorContext<ChannelState>;
type MoveEnd = Extract<MoveCommand, { type: 'message.moveEnd' }>;
type Rows = ReturnType<typeof rowsOfEach>[number];

/** How long a move may stay unfinished before the source completes it on its own. */
const RECOVER_AFTER_MS = 30_000;

const sameTopic = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** The messages a move takes: the one named, what follows it in its topic, or the whole topic (as the mover sees it). */
function selectMoved(state: ChannelState, cmd: MoveOut, target: StoredMessage): StoredMessage[] {
  const inTopic = state.messages.filter((m) => sameTopic(m.topic, target.topic) && canSee(state, cmd.actor, m));
  if (cmd.propagate_mode === 'change_one') return [target];
  return cmd.propagate_mode === 'change_all' ? inTopic : inTopic.filter((m) => m.id >= target.id);
}

/**
 * The messages as the target will hold them: new topic, one more history
 * entry, and who has them here; the target decides who keeps them.
 */
function relocated(m: StoredMessage, rows: Rows, edit: MessageEdit, topic: string, at: number) {
  const { granted_to: _dropped, historical: _historical, ...rest } = m;
  const { holders, historical } = rows;
  const moved: StoredMessage = { ...rest, topic, edits: [...m.edits, edit], last_moved_timestamp: at, holders };
  return historical.length > 0 ? { ...moved, historical } : moved;
}

/**
 * Step one of a move between channels: checks everything the source can
 * (the destination as the mover saw it included) and records the move.
 * The messages stay here, readable, until the target holds them.
 */
export function decideMoveOut(ctx: Ctx, cmd: MoveOut): ChannelDecision<'message.moveOut'> {
  const state = ctx.state;
  requireMessageAccess(state, cmd.actor);
  const target = findMessage(state, cmd.message_id);
  if (!target || !canSee(state, cmd.actor, target)) throw invalidMessage();
  if (state.kind !== 'channel') throw new ChatError('BAD_REQUEST', 'Direct messages cannot be moved to channels.');
  const topic = cmd.topic ?? target.topic;
  const topicChanged = topic !== target.topic;
  checkDestination(cmd.target, cmd, topic);
  if (topicChanged) checkTopicChange(state, cmd, target, topic, ctx.now);
  checkChannelChange(state, cmd, target, ctx.now);
  const moved = selectMoved(state, cmd, target);
  if (!(topicChanged && isResolveOnly(target.topic, topic))) {
    checkWholeTopic(cmd, moved, topicChanged && !isResolveOnly(target.topic, topic), ctx.now);
  }
  const busy = new Set(Object.values(state.moving ?? {}).flatMap((p) => p.move.messages.map((m) => m.id)));
  if (moved.some((m) => busy.has(m.id))) {
    throw new ChatError('BAD_REQUEST', 'These messages are being moved already; try again in a moment.');
  }
  const at = Math.floor(ctx.now / 1000);
  const edit: MessageEdit = {
    timestamp: at,
    user_id: cmd.actor.user_id,
    prev_stream: state.channel!.stream_id,
    stream: cmd.target.stream_id,
    ...(topicChanged ? { prev_topic: target.topic, topic } : {}),
  };
  const toKey = channelAddress(realmOfKey(ctx.address.key), cmd.target.stream_id).key;
  const move: ChannelMove = {
    id: `${ctx.address.key}/${target.id}/${ctx.now}`,
    from: ctx.address.key,
    to: toKey,
    actor: cmd.actor,
    messages: rowsOfEach(state, ctx.address.key, moved).map((rows, i) => relocated(moved[i]!, rows, edit, topic, at)),
  };
  // A private destination gives them nothing to read here: they lose the messages (see move/events.ts).
  const outsiders = cmd.target.invite_only ? [] : outsidersOf(state, moved);
  if (outsiders.length > 0) move.outsiders = outsiders;
  const facts = { key: ctx.address.key, toKey, target, moved, at, ...(topicChanged ? { topic } : {}) };
  const fanouts = moveFanouts(state, cmd, facts);
  const movedIds = new Set(moved.map((m) => m.id));
  const left = state.messages.some(
    (m) => !movedIds.has(m.id) && sameTopic(m.topic, target.topic) && canSee(state, cmd.actor, m),
  );
  ctx.timers.set('moves', RECOVER_AFTER_MS);
  const reply: MoveBegun = {
    move,
    old_topic: target.topic,
    new_topic: topic,
    moved_all_visible: cmd.propagate_mode === 'change_all' || !left,
  };
  return { events: [{ type: 'moveStarted', pending: { move, fanouts, at: ctx.now } }], reply };
}

/** Step three: the target holds the messages (they leave, and everyone hears), or refused them (they stay). */
export function decideMoveEnd(ctx: Ctx, cmd: MoveEnd): ChannelDecision<'message.moveEnd'> {
  const state = ctx.state;
  const pending = state.moving?.[cmd.move_id];
  // Already ended: by the edge, or by the recovery below.
  if (!pending) return { reply: { ended: false } };
  const events: ChannelEvent[] = [{ type: 'moveEnded', id: cmd.move_id, done: cmd.done }];
  if (!cmd.done) return { events, reply: { ended: true } };
  const gone = new Set(pending.move.messages.map((m) => m.id));
  const first = state.messages.find((m) => !gone.has(m.id))?.id ?? null;
  const fanouts = [...pending.fanouts, ...firstMessageUpdate(state, ctx.address.key, state.messages[0]?.id, first)];
  return { events, fanouts, reply: { ended: true } };
}

/**
 * Recovery: a move whose edge gave up (or died) is completed by the source
 * itself. It asks the target again by a tell (the import is idempotent),
 * and the target tells it how that went; never an ask, so two channels
 * moving messages to each other cannot wait on each other.
 */
export function decideMovesTimer(ctx: Ctx): Decision<ChannelEvent> {
  const pending = Object.values(ctx.state.moving ?? {});
  if (pending.length === 0) return {};
  ctx.timers.set('moves', RECOVER_AFTER_MS);
  const due = pending.filter((p) => ctx.now - p.at >= RECOVER_AFTER_MS / 2);
  return {
    tells: due.map((p) => ({
      to: conversationOfKey(p.move.to),
      body: { type: 'message.moveIn', move: p.move, notify_source: true },
    })),
  };
}

/** After a restart or passivation, unfinished moves are picked up again. */
export function resumeMoves(ctx: Ctx): void {
  if (Object.keys(ctx.state.moving ?? {}).length > 0) ctx.timers.set('moves', RECOVER_AFTER_MS / 2);
}
