import { NOTHING_BAD, type LadderCase, type LadderSection } from './ladder.js';
import { PNG } from './permission-cases-emoji.js';

/** The route ladder's cases (routes.test.ts) for organization settings. */
const cases: LadderCase[] = [
  {
    method: 'PATCH',
    path: '/realm',
    auth: true,
    valid: { description: 'climbing the ladder' },
    bad: { params: { allow_message_editing: 'maybe' }, name: 'allow_message_editing' },
  },
  { method: 'GET', path: '/realm/emoji', auth: true, valid: {}, bad: NOTHING_BAD },
  {
    method: 'POST',
    path: '/realm/emoji/ladder_emoji',
    template: '/realm/emoji/{emoji_name}',
    auth: true,
    files: true,
    file: PNG,
    valid: {},
    bad: NOTHING_BAD,
  },
  {
    method: 'DELETE',
    path: '/realm/emoji/ladder_doomed',
    template: '/realm/emoji/{emoji_name}',
    auth: true,
    valid: {},
    bad: NOTHING_BAD,
  },
];

export const orgLadder: LadderSection = {
  cases,
  prepare: async (client) => {
    await client.upload('/realm/emoji/ladder_doomed', [PNG]);
  },
};
