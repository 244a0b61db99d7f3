import type { ChatClient, Params } from '@chat/testkit';
import { missing, NOTHING_BAD as none, type LadderCase, type LadderSection } from './ladder.js';

/**
 * The route ladder's cases (routes.test.ts) for settings, statuses,
 * presence and typing. A user's presence can only be read once they
 * reported one, which `prepare` does first.
 */
async function prepare(client: ChatClient): Promise<void> {
  await client.post('/users/me/presence', { status: 'active', ping_only: true });
}

function cases(): LadderCase[] {
  const settings = (path: string, valid: Params, bad: Params, name: string): LadderCase => ({
    method: 'PATCH',
    path,
    auth: true,
    valid,
    bad: { params: bad, name },
  });
  return [
    settings('/settings', { enter_sends: false }, { color_scheme: '9' }, 'color_scheme'),
    settings('/settings/display', { high_contrast_mode: false }, { emojiset: 'apple' }, 'emojiset'),
    settings('/settings/notifications', { enable_sounds: true }, { enable_sounds: 'maybe' }, 'enable_sounds'),
    {
      method: 'POST',
      path: '/users/me/status',
      auth: true,
      valid: { status_text: 'climbing the ladder' },
      bad: { params: { away: 'perhaps' }, name: 'away' },
    },
    {
      method: 'GET',
      path: '/users/10/status',
      template: '/users/{user_id}/status',
      auth: true,
      valid: {},
      bad: { path: '/users/ten/status', params: {}, name: 'user_id' },
    },
    {
      method: 'POST',
      path: '/users/me/presence',
      auth: true,
      valid: { status: 'active' },
      bad: missing('status'),
    },
    { method: 'GET', path: '/realm/presence', auth: true, valid: {}, bad: none },
    {
      method: 'GET',
      path: '/users/iago@zulip.com/presence',
      template: '/users/{user_id_or_email}/presence',
      auth: true,
      valid: {},
      bad: none,
    },
    {
      method: 'POST',
      path: '/typing',
      auth: true,
      valid: { op: 'start', to: '[10]' },
      bad: { params: { op: 'typing', to: '[10]' }, name: 'op' },
    },
  ];
}

export const peopleLadder: LadderSection = { prepare, cases: cases() };
