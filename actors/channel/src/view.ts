import type { StoredMessage, Viewer, ViewedMessage } from '@chat/protocol';
import { inRanges, participantsOfKey } from '@chat/protocol';
import { historicalRow, holds } from './holders.js';
import type { ChannelState } from './state.js';

/**
 * The viewer's flags on one message, as the original's UserMessage row has
 * them: without a row (a channel message sent before they joined, after
 * they left, or never theirs) `read` and `historical`; a historical row
 * (made by reacting, starring or marking unread) its read state and star
 * with `historical`; a row made at sending its read state, star, alert
 * words and mentions.
 */
export function flagsFor(state: ChannelState, viewer: Viewer, message: StoredMessage, member?: boolean): string[] {
  const me = viewer.user_id;
  const starred = viewer.starred.includes(message.id) ? ['starred'] : [];
  if (!holds(state, me, message, member)) return ['read', ...starred, 'historical'];
  const own = message.sender_id === me;
  const flags: string[] = [];
  if (own ? !viewer.unread_own.includes(message.id) : inRanges(viewer.read, message.id)) flags.push('read');
  flags.push(...starred);
  if (historicalRow(state, me, message)) return [...flags, 'historical'];
  if (viewer.alerted?.includes(message.id)) flags.push('has_alert_word');
  if (message.mentioned_user_ids.includes(me) || message.group_member_ids.includes(me)) flags.push('mentioned');
  if (!own) {
    if (message.channel_wildcard) flags.push('stream_wildcard_mentioned');
    if (message.topic_wildcard && participated(state, me, message)) flags.push('topic_wildcard_mentioned');
    if (message.channel_wildcard || flags.includes('topic_wildcard_mentioned')) flags.push('wildcard_mentioned');
  }
  return flags;
}

function participated(state: ChannelState, userId: number, message: StoredMessage): boolean {
  const topic = message.topic.toLowerCase();
  return state.messages.some((m) => m.id < message.id && m.sender_id === userId && m.topic.toLowerCase() === topic);
}

/** `member`: whether the viewer is subscribed, when the caller knows (a lookup in `members` is linear). */
export function view(
  state: ChannelState,
  key: string,
  viewer: Viewer,
  message: StoredMessage,
  member?: boolean,
): ViewedMessage {
  const { holders: _holders, granted_to: _granted, historical: _historical, ...rest } = message;
  return {
    ...rest,
    channel_id: state.channel?.stream_id ?? null,
    channel_name: state.channel?.name ?? null,
    dm_user_ids: state.kind === 'dm' ? state.members : (participantsOfKey(key) ?? []),
    flags: flagsFor(state, viewer, message, member),
  };
}
