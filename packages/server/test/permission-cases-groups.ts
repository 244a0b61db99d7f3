import { expectOk, type Fixtures } from './matrix-fixtures.js';
import { authenticated, badRequest, NO_BOTS, NO_GUESTS, OK, type Caller, type Operation } from './matrix-model.js';

/**
 * User groups: every group operation but deactivation is `require_member_or_admin`
 * in the original (spec 18: "bots and guests cannot use it": "This endpoint
 * does not accept bot requests.", "Not allowed for guest users"). Changing a
 * group takes its `can_manage_group` (or the permission the change names),
 * or the realm's `can_manage_all_groups` (owners by default); administrators
 * get no exception (the original's `access_user_group_for_update`: "Insufficient
 * permission"). The target groups are made by the owner and name othello (the
 * member) as their manager. The other realm holds none of them ("Invalid user group").
 */
const INSUFFICIENT = badRequest('Insufficient permission');
const INVALID_GROUP = badRequest('Invalid user group');
const made = { shared: 0 };

async function group(fx: Fixtures): Promise<number> {
  const othello = { direct_members: [fx.callers.member.userId!], direct_subgroups: [] };
  const created = await expectOk(
    fx.callers.owner.client.post<{ group_id: number }>('/user_groups/create', {
      name: fx.unique('matrix group'),
      description: '',
      members: [],
      can_manage_group: othello,
      can_add_members_group: othello,
    }),
  );
  return created.group_id;
}

async function prepare(fx: Fixtures): Promise<void> {
  // The other realm makes one group of its own: the first id goes to a throwaway here, so that no id of
  // this realm's targets is one of its.
  await group(fx);
  made.shared = await group(fx);
}

/** Reads of a group: members and above of this realm. */
const READ = authenticated({ everyone: OK, bot: NO_BOTS, guest: NO_GUESTS, otherRealm: INVALID_GROUP });
/** Changes of a group managed by othello: othello and the owner (can_manage_all_groups). */
const MANAGE = authenticated({
  everyone: INSUFFICIENT,
  bot: NO_BOTS,
  guest: NO_GUESTS,
  member: OK,
  owner: OK,
  otherRealm: INVALID_GROUP,
});

const groupPath = (id: number, suffix = '') => `/user_groups/${id}${suffix}`;
const asSelf = (caller: Caller) => caller.userId ?? 10;

export const groupCases: Operation[] = [
  {
    method: 'GET',
    template: '/user_groups',
    prepare,
    request: () => ({ path: '/user_groups' }),
    expect: authenticated({ everyone: OK, bot: NO_BOTS, guest: NO_GUESTS }),
  },
  {
    // can_create_groups is members by default.
    method: 'POST',
    template: '/user_groups/create',
    request: (fx) => ({
      path: '/user_groups/create',
      params: { name: fx.unique('made'), description: '', members: [] },
    }),
    expect: authenticated({ everyone: OK, bot: NO_BOTS, guest: NO_GUESTS }),
  },
  {
    method: 'PATCH',
    template: '/user_groups/{user_group_id}',
    request: (_fx, caller) => ({ path: groupPath(made.shared), params: { description: `by ${caller.role}` } }),
    expect: MANAGE,
  },
  {
    // Adding someone else takes can_add_members_group; each caller gets a group of its own.
    method: 'POST',
    template: '/user_groups/{user_group_id}/members',
    request: async (fx) => ({ path: groupPath(await group(fx), '/members'), params: { add: [10] } }),
    expect: MANAGE,
  },
  {
    method: 'GET',
    template: '/user_groups/{user_group_id}/members',
    request: () => ({ path: groupPath(made.shared, '/members') }),
    expect: READ,
  },
  {
    method: 'POST',
    template: '/user_groups/{user_group_id}/subgroups',
    request: async (fx) => ({ path: groupPath(await group(fx), '/subgroups'), params: { add: [made.shared] } }),
    expect: MANAGE,
  },
  {
    method: 'GET',
    template: '/user_groups/{user_group_id}/subgroups',
    request: () => ({ path: groupPath(made.shared, '/subgroups') }),
    expect: READ,
  },
  {
    // No require_member_or_admin here in the original: bots and guests get the permission refusal.
    method: 'POST',
    template: '/user_groups/{user_group_id}/deactivate',
    request: async (fx) => ({ path: groupPath(await group(fx), '/deactivate') }),
    expect: { ...MANAGE, bot: INSUFFICIENT, guest: INSUFFICIENT },
  },
  {
    method: 'GET',
    template: '/user_groups/{user_group_id}/members/{user_id}',
    request: (_fx, caller) => ({ path: groupPath(made.shared, `/members/${asSelf(caller)}`) }),
    expect: READ,
  },
];
