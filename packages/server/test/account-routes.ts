import type { ChatClient } from '@chat/testkit';
import { onMade, type LadderSection } from './ladder.js';

/** Accounts made before the ladder runs: one to deactivate, one already deactivated to reactivate. */
const made = { active: 0, deactivated: 0 };

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
  },
  cases: [
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
