import type { StoredMessage, Viewer, ViewedMessage } from '@chat/protocol';
import { inRanges, participantsOfKey } from '@chat/protocol';
import { isMember } from './access.js';
import type { ChannelState } from './state.js';

/** The viewer's flags on one message, derived from their read ranges, stars and the message's mentions. */
export function flagsFor(state: ChannelState, viewer: Viewer, message: StoredMessage): string[] {
  const me = viewer.user_id;
  const flags: string[] = [];
  const member = isMember(state, me);
  const own = message.sender_id === me;
  const read = !member || (own ? !viewer.unread_own.includes(message.id) : inRanges(viewer.read, message.id));
  if (read) flags.push('read');
  if (viewer.starred.includes(message.id)) flags.push('starred');
  if (viewer.alerted?.includes(message.id)) flags.push('has_alert_word');
  if (message.mentioned_user_ids.includes(me) || message.group_member_ids.includes(me)) flags.push('mentioned');
  if (member && !own) {
    if (message.channel_wildcard) flags.push('stream_wildcard_mentioned');
    if (message.topic_wildcard && participated(state, me, message)) flags.push('topic_wildcard_mentioned');
    if (message.channel_wildcard || flags.includes('topic_wildcard_mentioned')) flags.push('wildcard_mentioned');
  }
  // A channel message the viewer never received, shown because the history is public.
  if (!member) flags.push('historical');
  return flags;
}

function participated(state: ChannelState, userId: number, message: StoredMessage): boolean {
  const topic = message.topic.toLowerCase();
  return state.messages.some((m) => m.id < message.id && m.sender_id === userId && m.topic.toLowerCase() === topic);
}

export function view(state: ChannelState, key: string, viewer: Viewer, message: StoredMessage): ViewedMessage {
  const { holders: _holders, granted_to: _granted, ...rest } = message;
  return {
    ...rest,
    channel_id: state.channel?.stream_id ?? null,
    channel_name: state.channel?.name ?? null,
    dm_user_ids: state.kind === 'dm' ? state.members : (participantsOfKey(key) ?? []),
    flags: flagsFor(state, viewer, message),
  };
}
