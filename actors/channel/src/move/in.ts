import { ChatError, type MoveCommand, type MoveImported, type StoredMessage, conversationOfKey } from '@chat/protocol';
import type { ActorContext } from '@chat/runtime';
import { can, canSee, hasContentAccess, invalidChannel } from '../access.js';
import { firstMessageUpdate } from './events.js';
import { findMessage, type ChannelState, type ChannelDecision } from '../state.js';

type MoveIn = Extract<MoveCommand, { type: 'message.moveIn' }>;

/** Checked again here, against this channel's own state: it may have changed since the mover looked. */
function refusal(state: ChannelState, cmd: MoveIn): ChatError | undefined {
  const actor = cmd.move.actor;
  if (state.kind !== 'channel' || state.channel!.is_archived || !hasContentAccess(state, actor)) {
    return invalidChannel();
  }
  if (!can(state, 'can_send_message_group', actor)) {
    return new ChatError('BAD_REQUEST', 'You do not have permission to post in this channel.');
  }
  return undefined;
}

/**
 * Who has the messages here, as the original keeps its rows on a move: who
 * had them and is subscribed here, or never was subscribed to the source
 * (`outsiders`); with protected history every subscriber too, since moved
 * messages keep their (older) ids. `members`: the subscribers, sorted and as
 * a set, once per move.
 */
function granted(state: ChannelState, m: StoredMessage, outsiders: Set<number>, members: Members): StoredMessage {
  const here = (id: number) => members.set.has(id) || outsiders.has(id);
  // A move recorded before holders were named takes every subscriber here as having them.
  const had = m.holders ? m.holders.filter(here).sort((a, b) => a - b) : members.sorted;
  const kept = (id: number) => (m.holders ? here(id) && m.holders.includes(id) : members.set.has(id));
  const historical = (m.historical ?? []).filter(kept);
  const { historical: _historical, ...rest } = m;
  return { ...rest, holders: withSubscribers(state, had, members), ...(historical.length > 0 ? { historical } : {}) };
}

type Members = { sorted: number[]; set: Set<number> };

/** `had`, with protected history every subscriber too (sorted, as `had` and `members.sorted` are). */
function withSubscribers(state: ChannelState, had: number[], members: Members): number[] {
  if (state.channel!.history_public_to_subscribers) return had;
  const outside = had.filter((id) => !members.set.has(id));
  return outside.length === 0 ? members.sorted : [...members.sorted, ...outside].sort((a, b) => a - b);
}

/**
 * Step two of a move: the messages arrive with their ids, content,
 * reactions and history. Idempotent: a message already here is not
 * imported again, so a retried move completes instead of duplicating.
 */
export function decideMoveIn(ctx: ActorContext<ChannelState>, cmd: MoveIn): ChannelDecision<'message.moveIn'> {
  const state = ctx.state;
  const { move } = cmd;
  const source = conversationOfKey(move.from);
  const refused = refusal(state, cmd);
  if (refused) {
    if (!cmd.notify_source) throw refused;
    return { tells: [{ to: source, body: { type: 'message.moveEnd', move_id: move.id, done: false } }] };
  }
  const ids = new Set(move.messages.map((m) => m.id));
  const outsiders = new Set(move.outsiders ?? []);
  // Shared by the messages it fits, never changed in place (see giveHistorical in holders.ts).
  const members = { sorted: [...state.members], set: new Set(state.members) };
  const fresh = move.messages
    .filter((m) => !findMessage(state, m.id))
    .map((m) => granted(state, m, outsiders, members));
  const topic = move.messages[0]?.topic.toLowerCase();
  const reply: MoveImported = {
    preexisting: state.messages.some(
      (m) => !ids.has(m.id) && m.topic.toLowerCase() === topic && canSee(state, move.actor, m),
    ),
  };
  const tells = cmd.notify_source
    ? [{ to: source, body: { type: 'message.moveEnd' as const, move_id: move.id, done: true } }]
    : [];
  if (fresh.length === 0) return { tells, reply };
  const before = state.messages[0]?.id;
  const first = Math.min(before ?? Infinity, ...fresh.map((m) => m.id));
  return {
    events: [{ type: 'messagesImported', messages: fresh }],
    fanouts: firstMessageUpdate(state, ctx.address.key, before, first),
    tells,
    reply,
  };
}
