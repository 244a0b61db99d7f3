import { expectOk, type Fixtures } from './matrix-fixtures.js';
import {
  adminsOnly,
  authenticated,
  badRequest,
  NO_BOTS,
  NO_GUESTS,
  NOT_ADMIN,
  OK,
  type Caller,
  type Operation,
} from './matrix-model.js';

/**
 * Channel folders (administrators change them: reference
 * create-channel-folder and update-channel-folder, spec 20) and
 * invitations (spec 8 and the lifecycle around it).
 */
const made = { folder: 0 };

async function prepare(fx: Fixtures): Promise<void> {
  // The other realm makes one folder and one invitation of its own: the first ids go to throwaways here,
  // so that no id of this realm's targets is one of its.
  await expectOk(fx.admin.post('/channel_folders/create', { name: 'matrix throwaway' }));
  const shelf = { name: 'matrix shelf' };
  made.folder = (
    await expectOk(fx.admin.post<{ channel_folder_id: number }>('/channel_folders/create', shelf))
  ).channel_folder_id;
  await invitation(fx);
}

/** An invitation the administrator sent; answers its id. */
async function invitation(fx: Fixtures): Promise<number> {
  const email = `${fx.unique('invitee').replace(' ', '-')}@example.com`;
  await expectOk(fx.admin.post('/invites', { invitee_emails: email, stream_ids: [] }));
  const listed = await expectOk(fx.admin.get<{ invites: Array<{ id: number; email: string }> }>('/invites'));
  return listed.invites.find((i) => i.email === email)!.id;
}

/**
 * Invitations: `require_member_or_admin` as groups; inviting takes
 * can_invite_users_group (members by default); another's invitation is
 * managed by administrators only (reference revoke-email-invite, "that they
 * can manage"; the original's "Must be an organization administrator").
 */
const INVITES = authenticated({ everyone: OK, bot: NO_BOTS, guest: NO_GUESTS });
const OTHERS_INVITATION = authenticated({
  everyone: badRequest('Must be an organization administrator'),
  bot: NO_BOTS,
  guest: NO_GUESTS,
  administrator: OK,
  owner: OK,
  otherRealm: badRequest('No such invitation'),
});

export const folderCases: Operation[] = [
  {
    // Reference create-channel-folder: "Only organization administrators can create", UNAUTHORIZED_PRINCIPAL.
    method: 'POST',
    template: '/channel_folders/create',
    prepare,
    request: (fx) => ({ path: '/channel_folders/create', params: { name: fx.unique('matrix folder') } }),
    expect: adminsOnly(NOT_ADMIN, OK),
  },
  {
    method: 'GET',
    template: '/channel_folders',
    request: () => ({ path: '/channel_folders' }),
    expect: authenticated({ everyone: OK }),
  },
  {
    // Spec 20: administrators only; the order names every folder of the caller's realm.
    method: 'PATCH',
    template: '/channel_folders',
    request: async (_fx, caller) => ({ path: '/channel_folders', params: { order: await folderOrder(caller) } }),
    expect: adminsOnly(NOT_ADMIN, OK),
  },
  {
    // Reference update-channel-folder: administrators only; "Invalid channel folder ID" elsewhere.
    method: 'PATCH',
    template: '/channel_folders/{channel_folder_id}',
    request: (_fx, caller) => ({
      path: `/channel_folders/${made.folder}`,
      params: { description: `by ${caller.role}` },
    }),
    expect: adminsOnly(NOT_ADMIN, badRequest('Invalid channel folder ID')),
  },
  {
    // Spec 8.
    method: 'POST',
    template: '/invites',
    request: (fx) => ({
      path: '/invites',
      params: { invitee_emails: `${fx.unique('invited').replace(' ', '-')}@example.com`, stream_ids: [] },
    }),
    expect: INVITES,
  },
  { method: 'GET', template: '/invites', request: () => ({ path: '/invites' }), expect: INVITES },
  {
    method: 'DELETE',
    template: '/invites/{invite_id}',
    request: async (fx) => ({ path: `/invites/${await invitation(fx)}` }),
    expect: OTHERS_INVITATION,
  },
  {
    method: 'POST',
    template: '/invites/{invite_id}/resend',
    request: async (fx) => ({ path: `/invites/${await invitation(fx)}/resend` }),
    expect: OTHERS_INVITATION,
  },
];

/** Every folder of the caller's realm, in id order, as the caller reads them. */
async function folderOrder(caller: Caller): Promise<number[]> {
  const reply = await caller.client.get<{ channel_folders?: Array<{ id: number }> }>('/channel_folders', {
    include_archived: true,
  });
  return (reply.body.channel_folders ?? []).map((f) => f.id).sort((a, b) => a - b);
}
