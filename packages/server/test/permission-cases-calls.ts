import { authenticated, OK, type Operation } from './matrix-model.js';

/** Video calls. */
export const callCases: Operation[] = [
  {
    // Reference create-big-blue-button-video-call: any signed-in user, bots too (the original's view has no
    // role check); the other realm's owner gets a link of their own realm. The matrix's server has one configured.
    method: 'GET',
    template: '/calls/bigbluebutton/create',
    request: () => ({ path: '/calls/bigbluebutton/create', params: { meeting_name: 'matrix meeting' } }),
    expect: authenticated({ everyone: OK }),
  },
];
