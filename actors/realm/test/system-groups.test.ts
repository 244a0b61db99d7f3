import test from 'ava';
import { ROLES, SYSTEM_GROUPS } from '@chat/protocol';
import { MEMBER, MODERATOR, OWNER, principal, realm } from './fixtures.js';

type Kit = Awaited<ReturnType<typeof realm>>;

async function members(kit: Kit, group: keyof typeof SYSTEM_GROUPS): Promise<number[]> {
  const asked = await kit.run({ type: 'realm.userGroupMembers', group_id: SYSTEM_GROUPS[group], direct_only: true });
  if (asked.error) throw asked.error;
  return asked.reply as number[];
}

// A system group's members are found once and kept until an account changes (`groups/model.ts`):
// each list is read first, so that what is answered after the change cannot be the kept one.
test('system groups follow a role change and a deactivation after being read', async (t) => {
  const kit = await realm();
  const before = await members(kit, 'role:members');
  t.true(before.includes(MEMBER));
  t.deepEqual(await members(kit, 'role:moderators'), [MODERATOR]);
  const promoted = await kit.run({ type: 'realm.updateUser', actor_id: OWNER, user_id: MEMBER, role: ROLES.moderator });
  t.is(promoted.error, undefined);
  t.deepEqual(
    await members(kit, 'role:members'),
    before.filter((id) => id !== MEMBER),
  );
  t.deepEqual(await members(kit, 'role:moderators'), [MODERATOR, MEMBER]);
  const deactivated = await kit.run({
    type: 'realm.setActive',
    actor: principal(OWNER),
    user_id: MODERATOR,
    active: false,
  });
  t.is(deactivated.error, undefined);
  t.deepEqual(await members(kit, 'role:moderators'), [MEMBER]);
});
