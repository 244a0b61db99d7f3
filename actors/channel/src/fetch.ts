import { htmlToText } from '@chat/markdown';
import { highlight, matches, narrowMessage, type NarrowMessage, type ResolvedTerm } from '@chat/narrow';
import type { ChannelCommand, FetchResult, StoredMessage, Viewer, ViewedMessage } from '@chat/protocol';
import type { ActorContext } from '@chat/runtime';
import { canSee, invalidMessage, requireContentAccess, requireMessageAccess } from './access.js';
import { lowerBound, type ChannelState, type ChannelDecision } from './state.js';
import { view } from './view.js';

type Fetch = Extract<ChannelCommand, { type: 'message.fetch' }>;

function toNarrowMessage(state: ChannelState, m: ViewedMessage, searching: boolean): NarrowMessage {
  const channel = {
    is_public: state.channel ? !state.channel.invite_only : false,
    is_web_public: state.channel?.is_web_public ?? false,
  };
  return narrowMessage(m, channel, searching ? htmlToText(m.rendered) : '');
}

/** A predicate over stored messages: visible to the viewer and matching the narrow. */
export function matcher(state: ChannelState, key: string, viewer: Viewer, terms: ResolvedTerm[]) {
  const searching = terms.some((t) => t.operator === 'search');
  const member = state.members.includes(viewer.user_id);
  return (m: StoredMessage): ViewedMessage | undefined => {
    if (!canSee(state, viewer, m)) return undefined;
    const viewed = view(state, key, viewer, m, member);
    const subject = toNarrowMessage(state, viewed, searching);
    if (!matches(subject, terms, viewer.user_id)) return undefined;
    return searching ? { ...viewed, ...highlight(subject, terms) } : viewed;
  };
}

export function decideFetch(ctx: ActorContext<ChannelState>, cmd: Fetch): ChannelDecision<'message.fetch'> {
  const state = ctx.state;
  requireContentAccess(state, cmd.viewer);
  const test = matcher(state, ctx.address.key, cmd.viewer, cmd.narrow as ResolvedTerm[]);
  const messages = state.messages;
  const start = lowerBound(messages, cmd.anchor);
  const before: ViewedMessage[] = [];
  let i = start - 1;
  for (; i >= 0 && before.length < cmd.num_before; i--) {
    const m = test(messages[i]!);
    if (m) before.push(m);
  }
  const foundOldest = !remaining(messages, i, -1, test);
  const atAnchor = messages[start]?.id === cmd.anchor ? test(messages[start]!) : undefined;
  const after: ViewedMessage[] = [];
  let j = messages[start]?.id === cmd.anchor ? start + 1 : start;
  for (; j < messages.length && after.length < cmd.num_after; j++) {
    const m = test(messages[j]!);
    if (m) after.push(m);
  }
  const result: FetchResult = {
    messages: [...before.reverse(), ...(atAnchor && cmd.include_anchor ? [atAnchor] : []), ...after],
    found_oldest: foundOldest,
    found_newest: !remaining(messages, j, 1, test),
    found_anchor: atAnchor !== undefined,
    newest_id: messages.at(-1)?.id ?? 0,
  };
  return { reply: result };
}

/** Whether any message from index `from` on, stepping by `step`, passes `test`. */
function remaining(messages: StoredMessage[], from: number, step: 1 | -1, test: (m: StoredMessage) => unknown) {
  for (let k = from; k >= 0 && k < messages.length; k += step) if (test(messages[k]!)) return true;
  return false;
}

/** The oldest message the viewer has not read, or undefined. */
export function firstUnread(state: ChannelState, key: string, viewer: Viewer): number | undefined {
  if (!state.members.includes(viewer.user_id)) return undefined;
  const test = matcher(state, key, viewer, []);
  for (const m of state.messages) {
    const viewed = test(m);
    if (viewed && !viewed.flags.includes('read')) return m.id;
  }
  return undefined;
}

export function decideMatch(ctx: ActorContext<ChannelState>, cmd: Extract<ChannelCommand, { type: 'message.match' }>) {
  const state = ctx.state;
  requireContentAccess(state, cmd.viewer);
  const terms = cmd.narrow as ResolvedTerm[];
  const result: Record<string, { match_content: string; match_subject: string }> = {};
  for (const id of cmd.ids) {
    const message = state.messages[lowerBound(state.messages, id)];
    if (message?.id !== id || !canSee(state, cmd.viewer, message)) continue;
    const subject = toNarrowMessage(state, view(state, ctx.address.key, cmd.viewer, message), true);
    if (matches(subject, terms, cmd.viewer.user_id)) result[id] = highlight(subject, terms);
  }
  return { reply: result };
}

export function decideGet(ctx: ActorContext<ChannelState>, cmd: Extract<ChannelCommand, { type: 'message.get' }>) {
  const state = ctx.state;
  requireMessageAccess(state, cmd.viewer);
  const test = matcher(state, ctx.address.key, cmd.viewer, []);
  const found: ViewedMessage[] = [];
  for (const id of cmd.ids) {
    const message = state.messages[lowerBound(state.messages, id)];
    const viewed = message?.id === id ? test(message) : undefined;
    if (!viewed) throw invalidMessage();
    found.push(viewed);
  }
  return { reply: found };
}
