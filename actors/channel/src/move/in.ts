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
 * messages keep their (older) ids.
 */
function granted(state: ChannelState, m: StoredMessage, outsiders: Set<number>): StoredMessage {
  const channel = state.channel!;
  const members = new Set(state.members);
  // A move recorded before holders were named takes every subscriber here as having them.
  const had = (m.holders ?? state.members).filter((id) => members.has(id) || outsiders.has(id));
  const holders = channel.history_public_to_subscribers ? had : [...new Set([...had, ...state.members])];
  const kept = new Set(had);
  const historical = (m.historical ?? []).filter((id) => kept.has(id));
  const { historical: _historical, ...rest } = m;
  return { ...rest, holders: holders.sort((a, b) => a - b), ...(historical.length > 0 ? { historical } : {}) };
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
  const fresh = move.messages.filter((m) => !findMessage(state, m.id)).map((m) => granted(state, m, outsiders));
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
