import type { ChatClient } from '@chat/testkit';
import { NOTHING_BAD, onMade, type LadderSection } from './ladder.js';

/**
 * The route ladder's cases (routes.test.ts) for invitations. Revoking and
 * resending each get an invitation of their own, made by `prepare`.
 */
const made = { revoke: 0, resend: 0 };

async function prepare(client: ChatClient): Promise<void> {
  const emails = ['ladder-revoke@example.com', 'ladder-resend@example.com'];
  await client.post('/invites', { invitee_emails: emails.join(','), stream_ids: '[]' });
  const listed = await client.get<{ invites: Array<{ id: number; email: string }> }>('/invites');
  const idOf = (email: string) => listed.body.invites.find((i) => i.email === email)!.id;
  made.revoke = idOf(emails[0]!);
  made.resend = idOf(emails[1]!);
}

export const inviteLadder: LadderSection = {
  prepare,
  cases: [
    {
      method: 'POST',
      path: '/invites',
      auth: true,
      valid: { invitee_emails: 'ladder-invite@example.com', stream_ids: '[]' },
      bad: { params: { invitee_emails: 'ladder-bad@example.com', stream_ids: 'nope' }, name: 'stream_ids' },
    },
    { method: 'GET', path: '/invites', auth: true, valid: {}, bad: NOTHING_BAD },
    onMade(
      'DELETE',
      '/invites/{invite_id}',
      () => `/invites/${made.revoke}`,
      {},
      {
        path: '/invites/x',
        params: {},
        name: 'invite_id',
      },
    ),
    onMade(
      'POST',
      '/invites/{invite_id}/resend',
      () => `/invites/${made.resend}/resend`,
      {},
      {
        path: '/invites/x/resend',
        params: {},
        name: 'invite_id',
      },
    ),
  ],
};
