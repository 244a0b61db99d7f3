import type { NarrowScope, ResolvedTerm } from './types.js';

/** A scope no message is in: the narrow contradicts itself, so the server need not fetch at all. */
const NOTHING: NarrowScope = { kind: 'message', ids: [] };

const sameIds = (a: number[], b: number[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * Which conversations a narrow can only be in, so a server fetches from as few places as possible:
 * a non-negated `id` pins single messages; else a non-negated `channel` pins one channel; else a
 * non-negated `dm` pins one conversation (participants including the viewer, sorted). Contradictory
 * terms (two different ids, channels or dm sets, or an empty dm list) give `{ kind: 'message', ids: [] }`.
 * The scope only narrows where to look: the caller still runs `matches` on what it fetches.
 * Resolve `with` first (see resolveWith); an unresolved `with` does not narrow the scope.
 */
export function scopeOf(terms: ResolvedTerm[], viewerId: number): NarrowScope {
  const positive = terms.filter((t) => !t.negated);

  const ids = new Set(positive.flatMap((t) => (t.operator === 'id' ? [t.operand] : [])));
  if (ids.size > 1) return NOTHING;
  if (ids.size === 1) return { kind: 'message', ids: [...ids] };

  const channels = new Set(positive.flatMap((t) => (t.operator === 'channel' ? [t.operand] : [])));
  if (channels.size > 1) return NOTHING;
  const [channelId] = channels;
  if (channelId !== undefined) return { kind: 'channel', channelId };

  const conversations = positive.flatMap((t) =>
    t.operator === 'dm' ? [[...new Set([...t.operand, viewerId])].sort((a, b) => a - b)] : [],
  );
  const [first] = conversations;
  if (first === undefined) return { kind: 'all' };
  // An empty dm list matches nothing (it became just the viewer above, so look at the operand).
  const emptyDm = positive.some((t) => t.operator === 'dm' && t.operand.length === 0);
  if (emptyDm || !conversations.every((c) => sameIds(c, first))) return NOTHING;
  return { kind: 'dm', userIds: first };
}

/**
 * The anchor a narrow suggests: a non-negated `near` term's message id first (that is all `near` is
 * for), then `id`, then an unresolved `with`; undefined when there is none.
 */
export function anchorOf(terms: ResolvedTerm[]): number | undefined {
  for (const operator of ['near', 'id', 'with'] as const) {
    const term = terms.find((t) => t.operator === operator && !t.negated);
    if (term !== undefined) return term.operand as number;
  }
  return undefined;
}
