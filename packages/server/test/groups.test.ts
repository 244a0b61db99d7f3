import { SYSTEM_GROUPS } from '@chat/protocol';
import type { ChatClient } from '@chat/testkit';
import { IDS, withServer } from './context.js';
import { next, register, type Body, type Event } from './queues.js';
import { fails, ok } from './replies.js';

/**
 * User groups through the API: listing (system groups computed from roles),
 * creation, updates, membership and subgroups, deactivation, and what
 * groups grant elsewhere (channel permissions, mentions). Tests run
 * concurrently; each uses groups of its own, with names of its own.
 */
const test = withServer(['iago', 'hamlet', 'othello', 'cordelia', 'polonius'], { heartbeatMs: 400 });

const NOBODY = SYSTEM_GROUPS['role:nobody'];

type Group = Body & { id: number; name: string; members: number[]; direct_subgroup_ids: number[] };

async function groups(client: ChatClient, params: Body = {}): Promise<Group[]> {
  const body = await ok(client, 'GET', '/user_groups', params);
  return body.user_groups as Group[];
}

async function create(client: ChatClient, params: Body): Promise<number> {
  const body = await ok(client, 'POST', '/user_groups/create', { description: '', members: [], ...params });
  return body.group_id as number;
}

const groupEvent = (op: string, id: number) => (e: Event) =>
  e.type === 'user_group' && e.op === op && (e.group_id === id || (e.group as Body | undefined)?.id === id);

test('GET /user_groups lists the system groups, their members computed from roles', async (t) => {
  const { hamlet } = t.context;
  const users = (await ok(hamlet, 'GET', '/users')).members as Array<Body & { user_id: number }>;
  const withRole = (role: number) =>
    users
      .filter((u) => u.role === role && u.is_active)
      .map((u) => u.user_id)
      .sort((a, b) => a - b);
  const listed = await groups(hamlet);
  const byName = new Map(listed.map((g) => [g.name, g]));
  for (const [name, id] of Object.entries(SYSTEM_GROUPS)) {
    t.like(byName.get(name), { id, is_system_group: true, creator_id: null, date_created: null });
  }
  t.deepEqual(byName.get('role:owners')!.members, withRole(100));
  t.deepEqual(byName.get('role:administrators')!.members, withRole(200));
  t.deepEqual(byName.get('role:administrators')!.direct_subgroup_ids, [SYSTEM_GROUPS['role:owners']]);
  t.deepEqual(byName.get('role:everyone')!.members, withRole(600));
  t.deepEqual(byName.get('role:nobody')!.members, []);
  // Through subgroups, everyone but guests is a member.
  const members = await ok(hamlet, 'GET', `/user_groups/${SYSTEM_GROUPS['role:members']}/members`);
  t.deepEqual(
    members.members,
    users
      .filter((u) => u.role !== 600 && u.is_active)
      .map((u) => u.user_id)
      .sort((a, b) => a - b),
  );
});

test('guests and bots cannot read user groups', async (t) => {
  const { server, polonius } = t.context;
  await fails(t, polonius.get('/user_groups'), 'BAD_REQUEST', 'Not allowed for guest users');
  await fails(t, polonius.get(`/user_groups/${SYSTEM_GROUPS['role:members']}/members`), 'BAD_REQUEST');
  const bot = await server.login('notification-bot@zulip.com');
  await fails(t, bot.get('/user_groups'), 'BAD_REQUEST', 'This endpoint does not accept bot requests.');
});

test('creating a group: read back with its defaults, and an add event to everyone', async (t) => {
  const { hamlet, othello } = t.context;
  const queue = await register(othello, { event_types: ['user_group'] });
  const id = await create(hamlet, {
    name: 'create-team',
    description: 'The **team**',
    members: [IDS.cordelia, IDS.hamlet],
  });
  const group = (await groups(othello)).find((g) => g.id === id)!;
  t.like(group, {
    name: 'create-team',
    description: 'The **team**',
    creator_id: IDS.hamlet,
    members: [IDS.cordelia, IDS.hamlet],
    direct_subgroup_ids: [],
    is_system_group: false,
    deactivated: false,
    can_join_group: NOBODY,
    can_leave_group: SYSTEM_GROUPS['role:everyone'],
    can_remove_members_group: NOBODY,
  });
  t.deepEqual(group.can_manage_group, { direct_members: [IDS.hamlet], direct_subgroups: [] });
  t.true(typeof group.date_created === 'number');
  const event = await next(queue, groupEvent('add', id));
  t.deepEqual(event.group, group);
  const direct = await ok(othello, 'GET', `/user_groups/${id}/members/${IDS.cordelia}`);
  t.true(direct.is_user_group_member);
});

test('creation failures have the original codes and messages', async (t) => {
  const { hamlet, polonius } = t.context;
  const base = { description: '', members: [] };
  const post = (client: ChatClient, params: Body) => client.post('/user_groups/create', { ...base, ...params });
  await fails(t, post(hamlet, { name: ' ' }), 'BAD_REQUEST', "User group name can't be empty!");
  await fails(t, post(hamlet, { name: 'role:mine' }), 'BAD_REQUEST', "User group name cannot start with 'role:'.");
  await fails(
    t,
    post(hamlet, { name: 'x'.repeat(101) }),
    'BAD_REQUEST',
    'User group name cannot exceed 100 characters.',
  );
  await fails(t, post(hamlet, { name: 'fail-a', members: [999] }), 'BAD_REQUEST', 'Invalid user ID: 999');
  await fails(t, post(hamlet, { name: 'fail-a', subgroups: [999] }), 'BAD_REQUEST', 'Invalid user group ID: 999');
  await fails(t, post(hamlet, { name: 'fail-a', can_manage_group: 999 }), 'BAD_REQUEST', 'Invalid user group');
  const everyone = SYSTEM_GROUPS['role:everyone'];
  await fails(
    t,
    post(hamlet, { name: 'fail-a', can_manage_group: everyone }),
    'BAD_REQUEST',
    /cannot be set to 'role:everyone'/,
  );
  // The original's require_user_group_create_permission is require_member_or_admin first.
  await fails(t, post(polonius, { name: 'fail-a' }), 'BAD_REQUEST', 'Not allowed for guest users');
  await create(hamlet, { name: 'fail-taken' });
  await fails(t, post(hamlet, { name: 'FAIL-taken' }), 'BAD_REQUEST', "User group 'FAIL-taken' already exists.");
});

test('PATCH changes name, description and settings, with update events', async (t) => {
  const { hamlet, othello, iago, cordelia } = t.context;
  const id = await create(hamlet, { name: 'patch-team' });
  const queue = await register(cordelia, { event_types: ['user_group'] });
  const path = `/user_groups/${id}`;
  const manage = { new: SYSTEM_GROUPS['role:moderators'], old: { direct_members: [IDS.hamlet], direct_subgroups: [] } };
  await ok(hamlet, 'PATCH', path, { name: 'patch-renamed', description: 'new words', can_manage_group: manage });
  const group = (await groups(cordelia)).find((g) => g.id === id)!;
  t.like(group, {
    name: 'patch-renamed',
    description: 'new words',
    can_manage_group: SYSTEM_GROUPS['role:moderators'],
  });
  const event = await next(queue, groupEvent('update', id));
  t.deepEqual(event.data, {
    name: 'patch-renamed',
    description: 'new words',
    can_manage_group: SYSTEM_GROUPS['role:moderators'],
  });

  // Hamlet no longer manages it; an administrator still does.
  await fails(t, hamlet.patch(path, { description: 'again' }), 'BAD_REQUEST', 'Insufficient permission');
  await ok(iago, 'PATCH', path, { description: 'by iago' });
  const stale = { can_join_group: { new: NOBODY, old: SYSTEM_GROUPS['role:members'] } };
  await fails(t, iago.patch(path, stale), 'BAD_REQUEST', "'old' value does not match the expected value.");
  await fails(t, iago.patch(path, {}), 'BAD_REQUEST', 'No new data supplied');
  await fails(t, othello.patch('/user_groups/99999', { name: 'x' }), 'BAD_REQUEST', 'Invalid user group');
  await fails(
    t,
    iago.patch(`/user_groups/${SYSTEM_GROUPS['role:members']}`, { description: 'x' }),
    'BAD_REQUEST',
    'Insufficient permission',
  );
});

test('members: joining, leaving, adding and removing follow their settings, with events', async (t) => {
  const { hamlet, othello, cordelia } = t.context;
  const id = await create(hamlet, { name: 'members-team', members: [IDS.hamlet] });
  const queue = await register(cordelia, { event_types: ['user_group'] });
  const path = `/user_groups/${id}/members`;
  await fails(t, othello.post(path, { add: [IDS.othello] }), 'BAD_REQUEST', 'Insufficient permission');
  await ok(hamlet, 'PATCH', `/user_groups/${id}`, { can_join_group: { new: SYSTEM_GROUPS['role:members'] } });
  await ok(othello, 'POST', path, { add: [IDS.othello] });
  t.deepEqual((await next(queue, groupEvent('add_members', id))).user_ids, [IDS.othello]);
  // Joining oneself is not adding others.
  await fails(t, othello.post(path, { add: [IDS.cordelia] }), 'BAD_REQUEST', 'Insufficient permission');
  await ok(hamlet, 'POST', path, { add: [IDS.cordelia, IDS.prospero], delete: [IDS.hamlet] });
  const members = await ok(hamlet, 'GET', path);
  t.deepEqual(members.members, [IDS.cordelia, IDS.othello, IDS.prospero]);
  t.deepEqual((await next(queue, (e) => groupEvent('remove_members', id)(e))).user_ids, [IDS.hamlet]);
  // Leaving is open to everyone by default.
  await ok(othello, 'POST', path, { delete: [IDS.othello] });
  const check = await ok(othello, 'GET', `${path}/${IDS.othello}`);
  t.false(check.is_user_group_member);
  await fails(
    t,
    hamlet.post(path, { add: [IDS.cordelia] }),
    'BAD_REQUEST',
    `User ${IDS.cordelia} is already a member of this group`,
  );
  await fails(
    t,
    hamlet.post(path, { delete: [IDS.hamlet] }),
    'BAD_REQUEST',
    `There is no member '${IDS.hamlet}' in this user group`,
  );
  await fails(t, hamlet.post(path, { add: [999] }), 'BAD_REQUEST', 'Invalid user ID: 999');
  await fails(t, hamlet.post(path, {}), 'BAD_REQUEST', /^Nothing to do/);
  await fails(t, hamlet.get(`${path}/999`), 'BAD_REQUEST', 'No such user');
});

test('subgroups: membership through them, cycles refused, with events', async (t) => {
  const { hamlet, cordelia } = t.context;
  const inner = await create(hamlet, { name: 'sub-inner', members: [IDS.othello] });
  const outer = await create(hamlet, { name: 'sub-outer', members: [IDS.hamlet] });
  const queue = await register(cordelia, { event_types: ['user_group'] });
  const path = `/user_groups/${outer}/subgroups`;
  await ok(hamlet, 'POST', path, { add: [inner] });
  t.deepEqual((await next(queue, groupEvent('add_subgroups', outer))).direct_subgroup_ids, [inner]);
  t.deepEqual((await ok(hamlet, 'GET', path)).subgroups, [inner]);
  const all = await ok(hamlet, 'GET', `/user_groups/${outer}/members`);
  t.deepEqual(all.members, [IDS.hamlet, IDS.othello]);
  const direct = await ok(hamlet, 'GET', `/user_groups/${outer}/members`, { direct_member_only: true });
  t.deepEqual(direct.members, [IDS.hamlet]);
  const through = await ok(hamlet, 'GET', `/user_groups/${outer}/members/${IDS.othello}`);
  t.true(through.is_user_group_member);

  await fails(
    t,
    hamlet.post(path, { add: [inner] }),
    'BAD_REQUEST',
    `User group ${inner} is already a subgroup of this group.`,
  );
  // inner's manager is hamlet too: making outer a subgroup of inner would close a loop.
  const loop = hamlet.post(`/user_groups/${inner}/subgroups`, { add: [outer] });
  await fails(t, loop, 'BAD_REQUEST', `User group ${inner} is already a subgroup of one of the passed subgroups.`);
  await fails(t, hamlet.post(path, { add: [999] }), 'BAD_REQUEST', 'Invalid user group ID: 999');
  await fails(t, hamlet.post(path, {}), 'BAD_REQUEST', 'Nothing to do. Specify at least one of "add" or "delete".');
  // The members endpoint takes subgroups too.
  await ok(hamlet, 'POST', `/user_groups/${outer}/members`, { delete_subgroups: [inner] });
  t.deepEqual((await next(queue, groupEvent('remove_subgroups', outer))).direct_subgroup_ids, [inner]);
  await fails(
    t,
    hamlet.post(path, { delete: [inner] }),
    'BAD_REQUEST',
    `User group ${inner} is not a subgroup of this group.`,
  );
});
