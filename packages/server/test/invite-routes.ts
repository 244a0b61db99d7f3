import type { ChatClient, Params } from '@chat/testkit';

/**
 * The route ladder's cases (routes.test.ts) for invitations. Revoking and
 * resending each get an invitation of their own, made by `prepareInviteCases`.
 */
interface LadderCase {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  at?: () => string;
  template?: string;
  auth: boolean;
  valid: Params;
  bad: { path?: string; params: Params; name: string; code?: string };
}

const made = { revoke: 0, resend: 0 };

export async function prepareInviteCases(client: ChatClient): Promise<void> {
  const emails = ['ladder-revoke@example.com', 'ladder-resend@example.com'];
  await client.post('/invites', { invitee_emails: emails.join(','), stream_ids: '[]' });
  const listed = await client.get<{ invites: Array<{ id: number; email: string }> }>('/invites');
  const idOf = (email: string) => listed.body.invites.find((i) => i.email === email)!.id;
  made.revoke = idOf(emails[0]!);
  made.resend = idOf(emails[1]!);
}

export function inviteCases(): LadderCase[] {
  return [
    {
      method: 'POST',
      path: '/invites',
      auth: true,
      valid: { invitee_emails: 'ladder-invite@example.com', stream_ids: '[]' },
      bad: { params: { invitee_emails: 'ladder-bad@example.com', stream_ids: 'nope' }, name: 'stream_ids' },
    },
    { method: 'GET', path: '/invites', auth: true, valid: {}, bad: { params: {}, name: '' } },
    {
      method: 'DELETE',
      path: '/invites/{invite_id}',
      template: '/invites/{invite_id}',
      at: () => `/invites/${made.revoke}`,
      auth: true,
      valid: {},
      bad: { path: '/invites/x', params: {}, name: 'invite_id' },
    },
    {
      method: 'POST',
      path: '/invites/{invite_id}/resend',
      template: '/invites/{invite_id}/resend',
      at: () => `/invites/${made.resend}/resend`,
      auth: true,
      valid: {},
      bad: { path: '/invites/x/resend', params: {}, name: 'invite_id' },
    },
  ];
}
