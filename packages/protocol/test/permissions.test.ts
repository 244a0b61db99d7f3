import test from 'ava';
import {
  isAdministrator,
  isGuest,
  isModeratorOrAbove,
  isOwner,
  mayAddSubscribers,
  mayHoldGroupPermission,
  mayInviteAs,
  mayInviteUsers,
  mayManageInviteAs,
  mayReadChannel,
  maySeePublicChannels,
  ROLES,
  SYSTEM_GROUPS,
  systemGroupsOf,
  type GroupSetting,
  type Role,
} from '../src/index.js';

// Expectations come from the original's role table (Zulip's UserProfile.ROLE_* and its system groups).
const G = SYSTEM_GROUPS;
const person = (role: Role, groups: number[] = systemGroupsOf(role)) => ({ user_id: 7, role, groups });
const { owner, administrator, moderator, member, guest } = ROLES;
const ALL: Role[] = [owner, administrator, moderator, member, guest];
const holders = (rule: (who: { role: number }) => boolean) => ALL.filter((role) => rule({ role }));

test('each role predicate includes exactly the stronger roles', (t) => {
  t.deepEqual(holders(isOwner), [owner]);
  t.deepEqual(holders(isAdministrator), [owner, administrator]);
  t.deepEqual(holders(isModeratorOrAbove), [owner, administrator, moderator]);
  t.deepEqual(holders(isGuest), [guest]);
  t.deepEqual(holders(maySeePublicChannels), [owner, administrator, moderator, member]);
});

test('system groups: a role is in its own group and every wider one, never in role:nobody', (t) => {
  const base = [G['role:internet'], G['role:everyone']];
  const members = [...base, G['role:members'], G['role:fullmembers']];
  t.deepEqual(systemGroupsOf(guest), base);
  t.deepEqual(systemGroupsOf(member), members);
  t.deepEqual(systemGroupsOf(moderator), [...members, G['role:moderators']]);
  t.deepEqual(systemGroupsOf(administrator), [...members, G['role:moderators'], G['role:administrators']]);
  t.deepEqual(systemGroupsOf(owner), [...members, G['role:moderators'], G['role:administrators'], G['role:owners']]);
  for (const role of ALL) t.false(systemGroupsOf(role).includes(G['role:nobody']));
});

test('an invitation grants the inviter’s role or a weaker one', (t) => {
  t.true(mayInviteAs({ role: member }, member));
  t.true(mayInviteAs({ role: member }, guest));
  t.false(mayInviteAs({ role: member }, moderator));
  t.true(mayInviteAs({ role: administrator }, administrator));
  t.false(mayInviteAs({ role: administrator }, owner));
  t.true(mayInviteAs({ role: owner }, owner));
});

test('guests never invite, whatever can_invite_users_group says', (t) => {
  t.false(mayInviteUsers(person(guest), G['role:everyone']));
  t.true(mayInviteUsers(person(member), G['role:members']));
  t.false(mayInviteUsers(person(member), G['role:administrators']));
  t.true(mayInviteUsers(person(member), { direct_members: [7], direct_subgroups: [] }));
});

test('only owners manage an invitation to become an owner', (t) => {
  t.false(mayManageInviteAs({ role: administrator }, owner));
  t.true(mayManageInviteAs({ role: owner }, owner));
  t.true(mayManageInviteAs({ role: administrator }, administrator));
});

test('guests never hold the group permissions the original keeps from them', (t) => {
  for (const name of [
    'can_add_members_group',
    'can_join_group',
    'can_manage_group',
    'can_remove_members_group',
  ] as const) {
    t.false(mayHoldGroupPermission({ role: guest }, name), name);
    t.true(mayHoldGroupPermission({ role: member }, name), name);
  }
  t.true(mayHoldGroupPermission({ role: guest }, 'can_mention_group'));
  t.true(mayHoldGroupPermission({ role: guest }, 'can_leave_group'));
});

test('reading a channel follows the original’s user_has_content_access', (t) => {
  const nobody: GroupSetting = G['role:nobody'];
  const channel = (invite_only: boolean, is_web_public = false, subscribe: GroupSetting = nobody) => ({
    invite_only,
    is_web_public,
    can_add_subscribers_group: nobody,
    can_subscribe_group: subscribe,
  });
  t.true(mayReadChannel(person(member), channel(false), false));
  t.false(mayReadChannel(person(guest), channel(false), false));
  t.true(mayReadChannel(person(guest), channel(true), true));
  t.false(mayReadChannel(person(owner), channel(true), false));
  // Web-public: everyone, guests too.
  t.true(mayReadChannel(person(guest), channel(false, true), false));
  // A private channel's subscribe or add-subscribers group grants non-guests, never guests.
  t.true(mayReadChannel(person(member), channel(true, false, G['role:members']), false));
  t.true(mayReadChannel(person(member), { ...channel(true), can_add_subscribers_group: G['role:members'] }, false));
  t.false(mayReadChannel(person(guest), channel(true, false, G['role:everyone']), false));
});

test('subscribing others follows the original’s can_subscribe_others', (t) => {
  const nobody: GroupSetting = G['role:nobody'];
  const channel = (invite_only: boolean, add: GroupSetting = nobody) => ({
    invite_only,
    is_web_public: false,
    can_subscribe_group: nobody,
    can_administer_channel_group: nobody,
    can_add_subscribers_group: add,
  });
  const realm = G['role:members'];
  t.true(mayAddSubscribers(person(member), channel(false), false, realm));
  t.false(mayAddSubscribers(person(member), channel(true), false, realm));
  t.true(mayAddSubscribers(person(member), channel(true), true, realm));
  t.false(mayAddSubscribers(person(member), channel(false), true, G['role:administrators']));
  t.true(mayAddSubscribers(person(member), channel(true, G['role:members']), false, nobody));
  t.true(mayAddSubscribers(person(administrator), channel(true), false, nobody));
  // A guest is refused even when every setting names a group containing them.
  t.false(mayAddSubscribers(person(guest), channel(false, G['role:everyone']), true, G['role:everyone']));
  const admins = { ...channel(true), can_administer_channel_group: { direct_members: [7], direct_subgroups: [] } };
  t.true(mayAddSubscribers(person(member), admins, false, nobody));
});
