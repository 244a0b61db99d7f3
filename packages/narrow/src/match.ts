import { parseSearch, searchMatches } from './search.js';
import { TopicVisibility, type IsOperand, type NarrowMessage, type ResolvedTerm } from './types.js';

/** The prefix the original puts before a resolved topic's name: a heavy check mark and a space. */
export const RESOLVED_TOPIC_PREFIX = '\u2714 ';

/** The flags the original counts for is:mentioned (wildcard_mentioned is the older name of the wildcard flags). */
const MENTION_FLAGS = [
  'mentioned',
  'wildcard_mentioned',
  'stream_wildcard_mentioned',
  'topic_wildcard_mentioned',
  'group_mentioned',
];

/**
 * Whether the viewer has muted this message's conversation: a muted topic, or a topic in a muted
 * channel that the viewer has not unmuted or followed. Direct messages are never muted.
 */
export function isMuted(message: NarrowMessage): boolean {
  if (message.channel_id === null) return false;
  const visibility = message.topic_visibility ?? TopicVisibility.INHERIT;
  if (visibility === TopicVisibility.MUTED) return true;
  if (visibility === TopicVisibility.UNMUTED || visibility === TopicVisibility.FOLLOWED) return false;
  return message.channel_muted === true;
}

function matchesIs(message: NarrowMessage, operand: IsOperand): boolean {
  const flags = message.flags;
  switch (operand) {
    case 'dm':
      return message.channel_id === null;
    case 'starred':
      return flags.includes('starred');
    case 'mentioned':
      return MENTION_FLAGS.some((f) => flags.includes(f));
    case 'alerted':
      return flags.includes('has_alert_word');
    case 'unread':
      return !flags.includes('read');
    case 'resolved':
      return message.channel_id !== null && message.topic.startsWith(RESOLVED_TOPIC_PREFIX);
    case 'followed':
      return message.channel_id !== null && message.topic_visibility === TopicVisibility.FOLLOWED;
    case 'muted':
      return isMuted(message);
  }
}

/** `dm` names a whole conversation: its participants must be exactly the named users plus the viewer. */
function matchesDm(message: NarrowMessage, others: number[], viewerId: number): boolean {
  // The original matches nothing for an empty user list.
  if (message.channel_id !== null || others.length === 0) return false;
  const wanted = new Set([...others, viewerId]);
  const actual = new Set(message.dm_user_ids);
  return wanted.size === actual.size && [...wanted].every((id) => actual.has(id));
}

function matchesTerm(message: NarrowMessage, term: ResolvedTerm, viewerId: number): boolean {
  const isChannelMessage = message.channel_id !== null;
  switch (term.operator) {
    case 'channel':
      return message.channel_id === term.operand;
    case 'channels':
      return (
        isChannelMessage && (term.operand === 'public' ? message.channel_is_public : message.channel_is_web_public)
      );
    case 'topic':
      return isChannelMessage && message.topic.toLowerCase() === term.operand.toLowerCase();
    case 'dm':
      return matchesDm(message, term.operand, viewerId);
    case 'dm-including':
      // With one's own id this is every direct message, as in the original.
      return !isChannelMessage && (term.operand === viewerId || message.dm_user_ids.includes(term.operand));
    case 'sender':
      return message.sender_id === term.operand;
    case 'is':
      return matchesIs(message, term.operand);
    case 'has':
      return message.has[term.operand];
    case 'in':
      // in:home is the combined feed: everything not muted.
      return !isMuted(message);
    case 'id':
      return message.id === term.operand;
    case 'near':
      return true; // never reached: see ignored()
    case 'with':
      throw new Error('narrow: a `with` term must be resolved with resolveWith() before matching');
    case 'search':
      return searchMatches(message, parseSearch(term.operand));
  }
}

/** Terms the original accepts but does not filter on, negated or not: near (an anchor hint) and in:all. */
const ignored = (term: ResolvedTerm): boolean =>
  term.operator === 'near' || (term.operator === 'in' && term.operand === 'all');

/**
 * Whether the message matches every term of the narrow, as seen by `viewerId` (whose flags and
 * muting are in the message). A negated term matches exactly when the term itself would not.
 * Throws a plain Error on an unresolved `with` term: that is a caller bug, not a bad request.
 */
export function matches(message: NarrowMessage, terms: ResolvedTerm[], viewerId: number): boolean {
  return terms.every((term) => ignored(term) || matchesTerm(message, term, viewerId) !== term.negated);
}
