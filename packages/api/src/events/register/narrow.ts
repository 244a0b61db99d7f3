import { ChatError } from '@chat/protocol';

/** The operators an event queue's narrow may use (the original's `check_narrow_for_events`). */
const SUPPORTED = new Set(['channel', 'stream', 'topic', 'sender', 'is']);
const UNSUPPORTED_IS = new Set(['followed']);

/**
 * Refuses a queue narrow the original refuses, naming the operator as the
 * client spelled it; elements come as `[operator, operand]` or as objects.
 */
export function checkEventsNarrow(narrow: unknown[]): unknown[] {
  for (const element of narrow) {
    const [operator, operand] = Array.isArray(element)
      ? element
      : [(element as { operator?: unknown } | null)?.operator, (element as { operand?: unknown } | null)?.operand];
    if (typeof operator !== 'string') continue; // the narrow parser reports malformed elements
    if (!SUPPORTED.has(operator)) throw new ChatError('BAD_REQUEST', `Operator ${operator} not supported.`);
    if (operator === 'is' && typeof operand === 'string' && UNSUPPORTED_IS.has(operand)) {
      throw new ChatError('BAD_REQUEST', `Operand ${operand} not supported.`);
    }
  }
  return narrow;
}
