import { ChatError } from '@chat/protocol';

/**
 * The original answers semantic narrow errors with code BAD_NARROW, message
 * "Invalid narrow operator: <desc>" and a `desc` field. Our protocol has no
 * BAD_NARROW code, so we keep the message and the `desc` field and use BAD_REQUEST.
 */
export function badNarrowOperator(desc: string): ChatError {
  return new ChatError('BAD_REQUEST', `Invalid narrow operator: ${desc}`, { desc });
}

/** The original's InvalidOperatorCombinationError, same shape as above. */
export function badOperatorCombination(desc: string): ChatError {
  return new ChatError('BAD_REQUEST', `Invalid narrow operator combination: ${desc}`, { desc });
}

/** Structural errors: the original reports these as a validation failure of element `index`. */
export function badElement(index: number, reason: string): ChatError {
  return new ChatError('BAD_REQUEST', `Invalid narrow[${index}]: Value error, ${reason}`);
}

/** Operand type errors, worded like the original's validators (which name the field `operand`). */
export function badValue(msg: string): ChatError {
  return new ChatError('BAD_REQUEST', msg);
}
