/**
 * The narrow engine: one implementation of Zulip narrows for GET /messages,
 * GET /messages/matches_narrow and event-queue narrows. Pure and synchronous:
 * parse the client's narrow, resolve names to ids (the caller does the lookups),
 * then match, highlight and scope messages.
 */
export { parseNarrow, MAX_MESSAGE_ID } from './parse.js';
export { namesIn, resolveNarrow, resolveWith, type NarrowIds } from './resolve.js';
export { matches, isMuted, RESOLVED_TOPIC_PREFIX } from './match.js';
export { highlight, escapeHtml } from './highlight.js';
export { scopeOf, anchorOf } from './scope.js';
export { narrowMessage } from './message.js';
export {
  TopicVisibility,
  IS_OPERANDS,
  HAS_OPERANDS,
  CHANNELS_OPERANDS,
  IN_OPERANDS,
  type Operator,
  type NarrowTerm,
  type ResolvedTerm,
  type NarrowMessage,
  type NarrowScope,
  type IsOperand,
  type HasOperand,
  type ChannelsOperand,
  type InOperand,
} from './types.js';
