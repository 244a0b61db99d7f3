import { NOTHING_BAD, type LadderSection } from './ladder.js';

/** The route ladder's cases (routes.test.ts) for data exports; the ladder's caller is an administrator. */
export const exportLadder: LadderSection = {
  cases: [
    {
      method: 'POST',
      path: '/export/realm',
      auth: true,
      valid: { export_type: 1 },
      bad: { params: { export_type: 'public' }, name: 'export_type' },
    },
    { method: 'GET', path: '/export/realm', auth: true, valid: {}, bad: NOTHING_BAD },
    { method: 'GET', path: '/export/realm/consents', auth: true, valid: {}, bad: NOTHING_BAD },
  ],
};
