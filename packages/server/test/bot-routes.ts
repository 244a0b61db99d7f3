import type { ChatClient } from '@chat/testkit';
import { missing, NOTHING_BAD as none, onMade, type LadderSection } from './ladder.js';
import { AVATAR_PNG } from './permission-cases-own-account.js';

/** The route ladder's cases (routes.test.ts) for bots and bot storage; `prepare` makes the bots they change. */
const made = { changed: 0, doomed: 0 };
const badKeys = { params: { keys: '[{' }, name: 'keys' };

async function prepare(client: ChatClient): Promise<void> {
  for (const key of ['changed', 'doomed'] as const) {
    const short = `ladder${key}${Date.now()}`;
    const bot = await client.post<{ user_id: number }>('/bots', { full_name: `Ladder ${key}`, short_name: short });
    made[key] = bot.body.user_id;
  }
}

export const botLadder: LadderSection = {
  prepare,
  cases: [
    {
      method: 'POST',
      path: '/bots',
      auth: true,
      valid: { full_name: 'Ladder new', short_name: `laddernew${Date.now()}` },
      bad: missing('short_name', { full_name: 'Ladder bad' }),
    },
    { method: 'GET', path: '/bots', auth: true, valid: {}, bad: none },
    onMade(
      'PATCH',
      '/bots/{bot_id}',
      () => `/bots/${made.changed}`,
      { default_all_public_streams: true },
      { path: '/bots/x', params: {}, name: 'bot_id' },
    ),
    onMade(
      'DELETE',
      '/bots/{bot_id}',
      () => `/bots/${made.doomed}`,
      {},
      { path: '/bots/x', params: {}, name: 'bot_id' },
    ),
    onMade(
      'POST',
      '/bots/{bot_id}/api_key/regenerate',
      () => `/bots/${made.changed}/api_key/regenerate`,
      {},
      { path: '/bots/x/api_key/regenerate', params: {}, name: 'bot_id' },
    ),
    { method: 'POST', path: '/users/me/avatar', auth: true, files: true, file: AVATAR_PNG, valid: {}, bad: none },
    { method: 'DELETE', path: '/users/me/avatar', auth: true, valid: {}, bad: none },
    { method: 'GET', path: '/bot_storage', auth: true, valid: {}, bad: badKeys },
    { method: 'PUT', path: '/bot_storage', auth: true, valid: { storage: '{"a": "b"}' }, bad: missing('storage') },
    { method: 'DELETE', path: '/bot_storage', auth: true, valid: {}, bad: badKeys },
  ],
};
