import { topicLinks, type RenderLinkifier } from '@chat/markdown';
import type { UserRef, ViewedMessage } from '@chat/protocol';
import { gravatarUrl } from '../users/json.js';

export interface MessageFormat {
  apply_markdown: boolean;
  client_gravatar: boolean;
  /** Clients that do not understand the empty topic get this name instead. */
  empty_topic_name: string | null;
  realm: string;
  /** The realm's `message_edit_history_visibility_policy` (default `all`): which edits `edit_history` shows. */
  edit_history?: string;
  /** The realm's linkifiers, for `topic_links` (absent: none). */
  linkifiers?: RenderLinkifier[];
  /** The fake e-mail domain: given, senders a restricted guest may not access show as "Unknown user". */
  fake_domain?: string;
}

/**
 * A message's `edit_history` as the original answers it: newest edit first;
 * only moves under `moves_only`; absent when never edited or under `none`.
 */
function editHistory(m: ViewedMessage, policy = 'all') {
  if (policy === 'none') return undefined;
  const edits =
    policy === 'moves_only'
      ? m.edits.filter((e) => e.prev_topic !== undefined || e.prev_stream !== undefined)
      : m.edits;
  if (edits.length === 0) return undefined;
  const newestFirst = [...edits].reverse();
  if (policy !== 'moves_only') return newestFirst;
  return newestFirst.map(({ prev_content: _content, prev_rendered_content: _rendered, ...move }) => move);
}

/** Zulip's recipient ids are their own namespace; a stable hash of the conversation stands in for one. */
function recipientId(m: ViewedMessage): number {
  if (m.channel_id !== null) return m.channel_id;
  let hash = 0x811c9dc5;
  for (const id of m.dm_user_ids) hash = Math.imul(hash ^ id, 0x01000193);
  return (hash >>> 0) % 0x7fffffff;
}

const person = (id: number, users: Map<number, UserRef>) => {
  const user = users.get(id);
  return { id, email: user?.email ?? '', full_name: user?.full_name ?? 'Unknown user', is_mirror_dummy: false };
};

/** Every user a list of messages refers to (senders and participants). */
export function referencedUsers(messages: ViewedMessage[]): number[] {
  const ids = new Set<number>();
  for (const m of messages) {
    ids.add(m.sender_id);
    for (const id of m.dm_user_ids) ids.add(id);
  }
  return [...ids];
}

/** A message in the shape of the reference's message object. */
export function messageJson(m: ViewedMessage, users: Map<number, UserRef>, format: MessageFormat) {
  const sender = users.get(m.sender_id);
  const history = editHistory(m, format.edit_history);
  const topic =
    m.topic === '' && format.empty_topic_name !== null && m.channel_id !== null ? format.empty_topic_name : m.topic;
  return {
    id: m.id,
    sender_id: m.sender_id,
    sender_email: sender?.email ?? '',
    sender_full_name: sender?.full_name ?? 'Unknown user',
    sender_realm_str: format.realm,
    // A client cannot compute a hidden sender's gravatar from the placeholder, so it gets the URL regardless.
    avatar_url: !sender
      ? null
      : (sender.gravatar_url ?? (format.client_gravatar ? null : gravatarUrl(sender.email, 1))),
    client: m.client,
    content: format.apply_markdown ? m.rendered : m.content,
    content_type: format.apply_markdown ? 'text/html' : 'text/x-markdown',
    flags: m.flags,
    is_me_message: false,
    reactions: m.reactions,
    recipient_id: recipientId(m),
    submessages: m.submessages ?? [],
    timestamp: m.timestamp,
    topic_links: m.channel_id !== null ? topicLinks(topic, format.linkifiers ?? []) : [],
    ...(history ? { edit_history: history } : {}),
    ...(m.last_edit_timestamp !== null ? { last_edit_timestamp: m.last_edit_timestamp } : {}),
    ...(m.last_moved_timestamp !== null ? { last_moved_timestamp: m.last_moved_timestamp } : {}),
    ...(m.channel_id !== null
      ? { type: 'stream', stream_id: m.channel_id, display_recipient: m.channel_name ?? '', subject: topic }
      : { type: 'private', display_recipient: m.dm_user_ids.map((id) => person(id, users)), subject: '' }),
  };
}
