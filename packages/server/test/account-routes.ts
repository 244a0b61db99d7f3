import type { ChatClient } from '@chat/testkit';
import { onMade, type LadderSection } from './ladder.js';

/** Accounts made before the ladder runs: one to deactivate, one already deactivated to reactivate. */
const made = { active: 0, deactivated: 0 };
/** Logged in before the ladder runs: regenerates its own API key, which nobody else uses. */
let regenerator: ChatClient | undefined;

async function account(admin: ChatClient, name: string): Promise<number> {
  const email = `${name}@zulip.com`;
  const reply = await admin.post<{ user_id: number }>('/users', { email, password: 'ladder pw', full_name: name });
  if (reply.status !== 200) throw new Error(JSON.stringify(reply.body));
  return reply.body.user_id;
}

export const accountLadder: LadderSection = {
  async prepare(admin) {
    made.active = await account(admin, 'ladder-leaver');
    made.deactivated = await account(admin, 'ladder-returner');
    await admin.delete(`/users/${made.deactivated}`);
    await account(admin, 'ladder-regenerator');
    const email = 'ladder-regenerator@zulip.com';
    const grant = await admin.as(undefined).post<{ api_key: string }>('/fetch_api_key', {
      username: email,
      password: 'ladder pw',
    });
    regenerator = admin.as({ email, apiKey: grant.body.api_key });
  },
  cases: [
    {
      method: 'POST',
      path: '/users/me/api_key/regenerate',
      auth: true,
      valid: {},
      bad: { params: {}, name: '' },
      as: () => regenerator!,
    },
    onMade(
      'DELETE',
      '/users/{user_id}',
      () => `/users/${made.active}`,
      {},
      {
        path: '/users/someone',
        params: {},
        name: 'user_id',
      },
    ),
    onMade(
      'POST',
      '/users/{user_id}/reactivate',
      () => `/users/${made.deactivated}/reactivate`,
      {},
      {
        path: '/users/someone/reactivate',
        params: {},
        name: 'user_id',
      },
    ),
  ],
};
