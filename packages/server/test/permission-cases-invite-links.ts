import { expectOk, type Fixtures } from './matrix-fixtures.js';
import { authenticated, badRequest, NO_BOTS, NO_GUESTS, OK, type Operation } from './matrix-model.js';

/** A reusable link the administrator made, for one caller to revoke. */
async function link(fx: Fixtures): Promise<number> {
  const made = await expectOk(fx.admin.post<{ invite_link: string }>('/invites/multiuse', {}));
  const listed = await expectOk(fx.admin.get<{ invites: Array<{ id: number; link_url?: string }> }>('/invites'));
  return listed.invites.find((i) => i.link_url === made.invite_link)!.id;
}

/**
 * Reusable invitation links: `require_member_or_admin`; making one takes
 * create_multiuse_invite_group (administrators by default, "Insufficient
 * permission"); another's link is revoked by administrators only (reference
 * revoke-invite-link, "that they can manage"). The other realm's owner makes
 * links of their own realm and has no link of this id.
 */
export const inviteLinkCases: Operation[] = [
  {
    method: 'POST',
    template: '/invites/multiuse',
    request: () => ({ path: '/invites/multiuse', params: {} }),
    expect: authenticated({
      everyone: badRequest('Insufficient permission'),
      bot: NO_BOTS,
      guest: NO_GUESTS,
      administrator: OK,
      owner: OK,
      otherRealm: OK,
    }),
  },
  {
    method: 'DELETE',
    template: '/invites/multiuse/{invite_id}',
    request: async (fx) => ({ path: `/invites/multiuse/${await link(fx)}` }),
    expect: authenticated({
      everyone: badRequest('Must be an organization administrator'),
      bot: NO_BOTS,
      guest: NO_GUESTS,
      administrator: OK,
      owner: OK,
      otherRealm: badRequest('No such invitation'),
    }),
  },
];
