import { badElement, badNarrowOperator, badOperatorCombination, badValue } from './errors.js';
import { CHANNELS_OPERANDS, HAS_OPERANDS, IN_OPERANDS, IS_OPERANDS, type NarrowTerm, type Operator } from './types.js';

/** Legacy and alternative spellings the original still accepts, mapped to the canonical name. */
const ALIASES: Record<string, Operator> = {
  stream: 'channel',
  streams: 'channels',
  subject: 'topic',
  'pm-with': 'dm',
  pm_with: 'dm',
  'group-pm-with': 'dm-including',
  group_pm_with: 'dm-including',
};

const CANONICAL = new Set<string>([
  'channel',
  'channels',
  'topic',
  'dm',
  'dm-including',
  'sender',
  'is',
  'has',
  'in',
  'near',
  'id',
  'with',
  'search',
]);

/**
 * Which operand shapes the original accepts, keyed by the operator as the client spelled it.
 * `near` is our addition: the original only takes a string there, but clients send ids as numbers.
 */
const TAKES_STRING_OR_INT = new Set([
  'channel',
  'stream',
  'id',
  'sender',
  'group-pm-with',
  'dm-including',
  'with',
  'near',
]);
const TAKES_STRING_OR_INT_LIST = new Set(['pm-with', 'dm']);

/** The original's Message.MAX_POSSIBLE_MESSAGE_ID: message ids are 32-bit signed. */
export const MAX_MESSAGE_ID = 2 ** 31 - 1;

interface RawTerm {
  operator: string;
  operand: unknown;
  negated: boolean;
}

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);

/** Element shape: a [operator, operand] string pair or an {operator, operand, negated?} object. */
function readElement(elem: unknown, index: number): { operator: unknown; operand: unknown; negated: unknown } {
  if (Array.isArray(elem)) {
    if (elem.length !== 2 || elem.some((x) => typeof x !== 'string'))
      throw badElement(index, 'element is not a string pair');
    return { operator: elem[0], operand: elem[1], negated: false };
  }
  if (typeof elem === 'object' && elem !== null) {
    const o = elem as Record<string, unknown>;
    if (o['operand'] === undefined || o['operand'] === null) throw badElement(index, 'operand is missing');
    if (o['operator'] === undefined || o['operator'] === null) throw badElement(index, 'operator is missing');
    return { operator: o['operator'], operand: o['operand'], negated: o['negated'] ?? false };
  }
  throw badElement(index, 'dict or list required');
}

/** Operand type check, in the original's order: operand first, then operator, then negated. */
function checkTypes(raw: { operator: unknown; operand: unknown; negated: unknown }): RawTerm {
  const { operator, operand, negated } = raw;
  const name = typeof operator === 'string' ? operator : '';
  if (TAKES_STRING_OR_INT.has(name)) {
    if (typeof operand !== 'string' && !isInt(operand)) throw badValue('operand is not a string or integer');
  } else if (TAKES_STRING_OR_INT_LIST.has(name)) {
    if (typeof operand !== 'string') {
      if (!Array.isArray(operand)) throw badValue('operand is not a string or an integer list');
      operand.forEach((x, i) => {
        if (!isInt(x)) throw badValue(`operand[${i}] is not an integer`);
      });
    }
  } else if (typeof operand !== 'string') {
    throw badValue('operand is not a string');
  } else if (name === 'search' && operand.trim() === '') {
    throw badValue('operand cannot be blank.');
  }
  if (typeof operator !== 'string') throw badValue('operator is not a string');
  if (typeof negated !== 'boolean') throw badValue('negated is not a boolean');
  return { operator, operand, negated };
}

/** A message id operand: a non-negative integer, or a string of digits. */
function messageId(operand: unknown): number | undefined {
  const n = typeof operand === 'string' && /^[0-9]+$/.test(operand) ? Number(operand) : operand;
  return isInt(n) && n >= 0 && n <= MAX_MESSAGE_ID ? n : undefined;
}

function oneOf<T extends string>(allowed: readonly T[], operand: unknown): operand is T {
  return (allowed as readonly unknown[]).includes(operand);
}

/** Canonicalizes one type-checked term and validates its operand's value. */
function canonicalize(raw: RawTerm): NarrowTerm {
  const operator = ALIASES[raw.operator] ?? raw.operator;
  if (!CANONICAL.has(operator)) throw badNarrowOperator(`unknown operator ${raw.operator}`);
  const { negated } = raw;
  const operand = raw.operand as string | number | number[];
  switch (operator as Operator) {
    case 'is': {
      const value = operand === 'private' ? 'dm' : operand;
      if (!oneOf(IS_OPERANDS, value)) throw badNarrowOperator(`unknown 'is' operand ${String(operand)}`);
      return { operator: 'is', operand: value, negated };
    }
    case 'has':
      if (!oneOf(HAS_OPERANDS, operand)) throw badNarrowOperator(`unknown 'has' operand ${String(operand)}`);
      break;
    case 'channels':
      if (!oneOf(CHANNELS_OPERANDS, operand)) throw badNarrowOperator(`unknown channels operand ${String(operand)}`);
      break;
    case 'in':
      if (!oneOf(IN_OPERANDS, operand)) throw badNarrowOperator(`unknown 'in' operand ${String(operand)}`);
      break;
    case 'id':
    case 'near': {
      const id = messageId(operand);
      if (id === undefined) throw badNarrowOperator('Invalid message ID');
      return { operator: operator as Operator, operand: id, negated };
    }
    case 'with': {
      const id = messageId(operand);
      if (id === undefined) throw badNarrowOperator("Invalid 'with' operator");
      return { operator: 'with', operand: id, negated };
    }
    case 'dm':
      // Sorted and de-duplicated so equal conversations compare equal downstream.
      if (Array.isArray(operand))
        return { operator: 'dm', operand: [...new Set(operand)].sort((a, b) => a - b), negated };
      break;
    default:
      break;
  }
  return { operator: operator as Operator, operand, negated };
}

/** The operators a resolved `with` term replaces (the original's list, canonicalized). */
export const REPLACED_BY_WITH: ReadonlySet<Operator> = new Set<Operator>(['channel', 'topic', 'dm']);

/** Terms that can only match channel messages, and terms that can only match direct messages. */
function conversationKind(term: NarrowTerm): 'channel' | 'dm' | undefined {
  if (term.operator === 'is' && term.operand === 'dm') return term.negated ? 'channel' : 'dm';
  if (term.negated) return undefined;
  if (term.operator === 'channel' || term.operator === 'channels' || term.operator === 'topic') return 'channel';
  if (term.operator === 'dm' || term.operator === 'dm-including') return 'dm';
  return undefined;
}

/**
 * Parses the `narrow` parameter value (already JSON-decoded): an array of {operator, operand, negated?}
 * objects or of legacy [operator, operand] pairs. Throws ChatError BAD_REQUEST with the original's
 * wording on anything invalid. Like the original, every element's shape is checked before any
 * element's meaning.
 */
export function parseNarrow(raw: unknown): NarrowTerm[] {
  if (!Array.isArray(raw)) throw badValue('narrow is not a list');
  const typed = raw.map((elem, i) => checkTypes(readElement(elem, i)));
  const terms = typed.map(canonicalize);

  if (terms.filter((t) => t.operator === 'with').length > 1)
    throw badOperatorCombination("Duplicate 'with' operators.");
  // A `with` term replaces the channel, topic and dm terms once resolved, so those cannot conflict yet.
  const hasWith = terms.some((t) => t.operator === 'with');
  const kept = hasWith ? terms.filter((t) => !REPLACED_BY_WITH.has(t.operator)) : terms;
  const kinds = new Set(kept.map(conversationKind));
  if (kinds.has('channel') && kinds.has('dm')) {
    throw badNarrowOperator('No message can be both a channel message and direct message');
  }
  return terms;
}
