import {
  streamUpdated,
  updateMessageEvent,
  type EditFlagFacts,
  type QueueEvent,
  type StoredMessage,
} from '@chat/protocol';
import { deleteEvent, fanout, receivers } from '../events.js';
import { holds, outsidersOf } from '../holders.js';
import { toUsers } from '../members.js';
import type { MoveOut } from './checks.js';
import type { Fanout } from './state.js';
import { topicParticipants } from '../send.js';
import type { ChannelState } from '../state.js';

export interface MoveFacts {
  key: string;
  toKey: string;
  /** The message the request named. */
  target: StoredMessage;
  /** As they are here, before the move. */
  moved: StoredMessage[];
  /** Only when the topic changes. */
  topic?: string;
  at: number;
}

const minus = (a: number[], b: Set<number>) => a.filter((id) => !b.has(id));

/**
 * Who hears what, as the original decides it: subscribers of the source,
 * and former ones who had the messages, who cannot read the destination
 * (all of them for a private one, guests for a public one) get `delete_message`; the others, and the destination's
 * subscribers, get `update_message`. With protected history in the source,
 * only those who had the messages and keep them hear of it.
 */
function audiences(state: ChannelState, cmd: MoveOut, f: MoveFacts) {
  const source = state.members;
  const target = cmd.target.subscribers;
  const [inSource, inTarget, guests] = [new Set(source), new Set(target), new Set(cmd.guest_ids)];
  // Former subscribers who had them lose them too (guests among them, or all for a private destination).
  const formerGuests = new Set(state.heldByGuests ?? []);
  const formers = Object.keys(state.held ?? {})
    .map(Number)
    .filter((id) => !inSource.has(id) && !inTarget.has(id) && f.moved.some((m) => holds(state, id, m, false)));
  // Who never was subscribed here keeps a historical row if the destination is public (see move/out.ts).
  const outsiders = outsidersOf(state, f.moved).filter((id) => !inTarget.has(id));
  const kept = cmd.target.invite_only ? [] : outsiders;
  const losing = [
    ...source.filter((id) => !inTarget.has(id) && (cmd.target.invite_only || guests.has(id))),
    ...formers.filter((id) => cmd.target.invite_only || formerGuests.has(id)),
    ...(cmd.target.invite_only ? outsiders : []),
  ];
  const lost = new Set(losing);
  const newest = f.moved.reduce((a, m) => (m.id > a.id ? m : a), f.target);
  const had = receivers(state, f.key, [newest], cmd.actor.user_id);
  // Guests who only now see the channel's messages would not know the old location.
  const newGuests = new Set(target.filter((id) => guests.has(id) && !inSource.has(id)));
  const notified = state.channel!.history_public_to_subscribers
    ? [...minus(minus([...new Set([...source, ...target])], lost), newGuests), ...kept]
    : [...had.filter((id) => inTarget.has(id)), ...kept];
  const notify = [...new Set([...notified, cmd.actor.user_id])];
  const both = source.filter((id) => inTarget.has(id));
  const fresh = minus([...new Set([...target, ...notify])], new Set(both));
  return { losing, notify, both, fresh };
}

function updateEvent(state: ChannelState, cmd: MoveOut, f: MoveFacts): QueueEvent {
  const { target } = f;
  const personal: EditFlagFacts = {
    key: f.toKey,
    sender_id: target.sender_id,
    is_channel: true,
    mentioned_user_ids: target.mentioned_user_ids,
    group_member_ids: target.group_member_ids,
    channel_wildcard: target.channel_wildcard,
    topic_wildcard: target.topic_wildcard,
    topic_participants: target.topic_wildcard ? [...topicParticipants(state, target.topic)] : [],
  };
  return updateMessageEvent({
    user_id: cmd.actor.user_id,
    edit_timestamp: f.at,
    message_id: target.id,
    message_ids: f.moved.map((m) => m.id).sort((a, b) => a - b),
    flags: [],
    rendering_only: false,
    stream_id: state.channel!.stream_id,
    stream_name: state.channel!.name,
    new_stream_id: cmd.target.stream_id,
    propagate_mode: cmd.propagate_mode,
    orig_subject: target.topic,
    ...(f.topic !== undefined ? { subject: f.topic, topic_links: [] } : {}),
    personal,
  });
}

/**
 * What the source sends once the target holds the messages, in this order:
 * read state first (the event's flags are read from it), then the events.
 */
export function moveFanouts(state: ChannelState, cmd: MoveOut, f: MoveFacts): Fanout[] {
  const { losing, notify, both, fresh } = audiences(state, cmd, f);
  const ids = f.moved.map((m) => m.id);
  const read = (userIds: number[], copy: boolean): Fanout =>
    toUsers(f.key, userIds, { type: 'user.moved', from: f.key, to: f.toKey, ids, copy });
  const fanouts = [read(both, true), read(fresh, false), fanout(f.key, notify, [updateEvent(state, cmd, f)])];
  if (losing.length > 0) fanouts.push(fanout(f.key, losing, [deleteEvent(state, f.moved)]));
  return fanouts.filter((x) => x.keys.length > 0);
}

/** `stream` op `update` of `first_message_id`, when a channel's oldest message changed. */
export function firstMessageUpdate(state: ChannelState, key: string, before: number | undefined, after: number | null) {
  if ((before ?? null) === after) return [];
  const channel = state.channel!;
  return [fanout(key, state.members, [streamUpdated(channel, 'first_message_id', after)])];
}
