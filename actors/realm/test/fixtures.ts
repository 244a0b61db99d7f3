import { ROLES, systemGroupsOf, type Principal, type Role } from '@chat/protocol';
import { BehaviorTestKit } from '@chat/runtime/testkit';
import { realmBehavior } from '../src/index.js';

export const OWNER = 1;
export const ADMIN = 2;
export const MODERATOR = 3;
export const MEMBER = 4;
export const GUEST = 5;

const ROLE_OF: Record<number, Role> = {
  [OWNER]: ROLES.owner,
  [ADMIN]: ROLES.administrator,
  [MODERATOR]: ROLES.moderator,
  [MEMBER]: ROLES.member,
  [GUEST]: ROLES.guest,
};

/** The realm `zulip` with one account of each role, ids 1 (owner) to 5 (guest). */
export async function realm(now = Date.UTC(2026, 0, 1)) {
  const kit = new BehaviorTestKit(realmBehavior, { key: 'zulip', now });
  const created = await kit.run({
    type: 'realm.create',
    name: 'Zulip',
    description: '',
    development: false,
    users: Object.entries(ROLE_OF).map(([id, role]) => ({
      email: `user${id}@zulip.test`,
      full_name: `User ${id}`,
      role,
    })),
  });
  if (created.error) throw created.error;
  return kit;
}

export const principal = (userId: number): Principal => ({
  realm: 'zulip',
  user_id: userId,
  email: `user${userId}@zulip.test`,
  role: ROLE_OF[userId]!,
  is_bot: false,
  full_name: `User ${userId}`,
  groups: systemGroupsOf(ROLE_OF[userId]!),
  can_create_users: false,
});
