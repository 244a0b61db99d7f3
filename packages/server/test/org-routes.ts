import type { LadderCase, LadderSection } from './ladder.js';

/** The route ladder's cases (routes.test.ts) for organization settings. */
const cases: LadderCase[] = [
  {
    method: 'PATCH',
    path: '/realm',
    auth: true,
    valid: { description: 'climbing the ladder' },
    bad: { params: { allow_message_editing: 'maybe' }, name: 'allow_message_editing' },
  },
];

export const orgLadder: LadderSection = { cases };
