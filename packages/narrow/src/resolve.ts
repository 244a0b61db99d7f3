import { badNarrowOperator } from './errors.js';
import { REPLACED_BY_WITH } from './parse.js';
import type { NarrowMessage, NarrowTerm, ResolvedTerm } from './types.js';

/** What `resolveNarrow` needs to turn names into ids. */
export interface NarrowIds {
  /** Users by e-mail; looked up as given, then lower-cased, since e-mails match case-insensitively. */
  byEmail: ReadonlyMap<string, number>;
  /** Channels by name; looked up as given, then lower-cased, since channel names match case-insensitively. */
  channelByName: ReadonlyMap<string, number>;
  /** When given, numeric user operands must be in it (else "unknown user"), as the original checks ids too. */
  userIds?: ReadonlySet<number>;
  /** When given, numeric channel operands must be in it (else "unknown channel"). */
  channelIds?: ReadonlySet<number>;
}

/** The e-mails of a `dm` operand string; the original splits on commas. */
function splitEmails(operand: string): string[] {
  return operand
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
}

/** The names and e-mails a narrow mentions, so the caller can resolve them to ids in one round trip. */
export function namesIn(terms: NarrowTerm[]): { emails: string[]; channelNames: string[] } {
  const emails = new Set<string>();
  const channelNames = new Set<string>();
  for (const { operator, operand } of terms) {
    if (typeof operand !== 'string') continue;
    if (operator === 'channel') channelNames.add(operand);
    else if (operator === 'sender' || operator === 'dm-including') emails.add(operand);
    else if (operator === 'dm') splitEmails(operand).forEach((e) => emails.add(e));
  }
  return { emails: [...emails], channelNames: [...channelNames] };
}

const lookup = (map: ReadonlyMap<string, number>, key: string): number | undefined =>
  map.get(key) ?? map.get(key.toLowerCase());

/** Python's rendering of a list, which the original puts in its "unknown user in" message. */
const pyList = (ids: number[]): string => `[${ids.join(', ')}]`;

function resolveUser(operand: string | number, ids: NarrowIds): number {
  const id = typeof operand === 'string' ? lookup(ids.byEmail, operand) : operand;
  if (id === undefined || (ids.userIds !== undefined && !ids.userIds.has(id))) {
    throw badNarrowOperator(`unknown user ${String(operand)}`);
  }
  return id;
}

function resolveDm(operand: string | number[], ids: NarrowIds): number[] {
  const found = typeof operand === 'string' ? splitEmails(operand).map((e) => lookup(ids.byEmail, e)) : operand;
  const known = (id: number | undefined): id is number => id !== undefined && (ids.userIds?.has(id) ?? true);
  if (!found.every(known)) {
    throw badNarrowOperator(`unknown user in ${typeof operand === 'string' ? operand : pyList(operand)}`);
  }
  return [...new Set(found)].sort((a, b) => a - b);
}

function resolveChannel(operand: string | number, ids: NarrowIds): number {
  const id = typeof operand === 'string' ? lookup(ids.channelByName, operand) : operand;
  if (id === undefined || (ids.channelIds !== undefined && !ids.channelIds.has(id))) {
    throw badNarrowOperator(`unknown channel ${String(operand)}`);
  }
  return id;
}

/**
 * Replaces channel names and e-mails with ids. Throws BAD_REQUEST in the original's wording
 * ("Invalid narrow operator: unknown channel X", "... unknown user X", "... unknown user in X").
 */
export function resolveNarrow(terms: NarrowTerm[], ids: NarrowIds): ResolvedTerm[] {
  return terms.map((term): ResolvedTerm => {
    const { negated } = term;
    switch (term.operator) {
      case 'channel':
        return { operator: 'channel', operand: resolveChannel(term.operand as string | number, ids), negated };
      case 'sender':
      case 'dm-including':
        return { operator: term.operator, operand: resolveUser(term.operand as string | number, ids), negated };
      case 'dm':
        return { operator: 'dm', operand: resolveDm(term.operand as string | number[], ids), negated };
      default:
        // parseNarrow has already checked these operands' types and values.
        return term as ResolvedTerm;
    }
  });
}

/** The original's test for whether the other terms alone pin down one conversation. */
function definesConversation(terms: ResolvedTerm[]): boolean {
  const has = (op: string) => terms.some((t) => t.operator === op);
  return has('dm') || (has('channel') && has('topic'));
}

/**
 * Resolves a `with` term, which narrows to the conversation containing a message. The engine cannot
 * look messages up, so the caller fetches the `with` message (if the viewer may access it) and passes
 * it here: its conversation's channel+topic or dm terms replace any channel, topic and dm terms. When
 * the message is missing or inaccessible (`null`), the `with` term is dropped if the remaining terms
 * still define one conversation, and the narrow is rejected otherwise, as the original does.
 */
export function resolveWith(
  terms: ResolvedTerm[],
  message: Pick<NarrowMessage, 'channel_id' | 'topic' | 'dm_user_ids'> | null | undefined,
): ResolvedTerm[] {
  if (!terms.some((t) => t.operator === 'with')) return terms;
  const rest = terms.filter((t) => t.operator !== 'with');
  if (!message) {
    if (definesConversation(rest)) return rest;
    throw badNarrowOperator("Invalid 'with' operator");
  }
  const others = rest.filter((t) => !REPLACED_BY_WITH.has(t.operator));
  const conversation: ResolvedTerm[] =
    message.channel_id !== null
      ? [
          { operator: 'channel', operand: message.channel_id, negated: false },
          { operator: 'topic', operand: message.topic, negated: false },
        ]
      : [{ operator: 'dm', operand: [...message.dm_user_ids], negated: false }];
  return [...conversation, ...others];
}
