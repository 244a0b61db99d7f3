import type { Config } from '../src/index.js';
import { missing, type LadderSection } from './ladder.js';

/**
 * A BigBlueButton server that is configured but never called: making a
 * call's link does not reach it (only opening the link does), so the
 * ladder and the matrix can climb `create` past its configuration check.
 */
export const UNCALLED_BIG_BLUE_BUTTON: Partial<Config> = {
  bigBlueButtonUrl: 'http://127.0.0.1:9/bigbluebutton/',
  bigBlueButtonSecret: 'never-used',
};

/** The route ladder's cases (routes.test.ts) for video calls. */
export const callLadder: LadderSection = {
  cases: [
    {
      method: 'GET',
      path: '/calls/bigbluebutton/create',
      auth: true,
      valid: { meeting_name: 'ladder meeting', voice_only: true },
      bad: missing('meeting_name', { voice_only: true }),
    },
  ],
};
