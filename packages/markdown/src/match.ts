import type { StateInline } from 'markdown-it';

/**
 * Matches a sticky pattern at the parser's position without copying the rest of
 * the source (slicing at every "@", "#" or ":" made long messages quadratic).
 */
export function matchAt(state: StateInline, sticky: RegExp): RegExpExecArray | undefined {
  sticky.lastIndex = state.pos;
  const m = sticky.exec(state.src);
  return m && state.pos + m[0].length <= state.posMax ? m : undefined;
}
