import type { ChatClient } from '@chat/testkit';
import { NOTHING_BAD, onMade, type LadderSection } from './ladder.js';

/**
 * The route ladder's cases (routes.test.ts) for invitations. Revoking and
 * resending each get an invitation of their own, made by `prepare`.
 */
const made = { revoke: 0, resend: 0, link: 0 };

async function prepare(client: ChatClient): Promise<void> {
  const emails = ['ladder-revoke@example.com', 'ladder-resend@example.com'];
  await client.post('/invites', { invitee_emails: emails.join(','), stream_ids: '[]' });
  const listed = await client.get<{ invites: Array<{ id: number; email: string }> }>('/invites');
  const idOf = (email: string) => listed.body.invites.find((i) => i.email === email)!.id;
  made.revoke = idOf(emails[0]!);
  made.resend = idOf(emails[1]!);
  const link = (await client.post<{ invite_link: string }>('/invites/multiuse', {})).body.invite_link;
  const links = await client.get<{ invites: Array<{ id: number; link_url?: string }> }>('/invites');
  made.link = links.body.invites.find((i) => i.link_url === link)!.id;
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
    {
      method: 'POST',
      path: '/invites/multiuse',
      auth: true,
      valid: { invite_expires_in_minutes: 60 },
      bad: { params: { stream_ids: 'nope' }, name: 'stream_ids' },
    },
    onMade(
      'DELETE',
      '/invites/multiuse/{invite_id}',
      () => `/invites/multiuse/${made.link}`,
      {},
      {
        path: '/invites/multiuse/x',
        params: {},
        name: 'invite_id',
      },
    ),
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
