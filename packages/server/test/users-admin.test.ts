import { ROLES, SYSTEM_GROUPS } from '@chat/protocol';
import type { ChatClient } from '@chat/testkit';
import { IDS, withServer } from './context.js';
import { next, register, type Body, type Event } from './queues.js';
import { ok } from './replies.js';

/**
 * Managing other users: PATCH /users/{user_id} and /users/{email} (full
 * name, role with who may make whom what), GET /users/{email}, and an
 * administrator setting another user's status. Events are checked against
 * the reference by the queue helpers. Tests change shared accounts, so they
 * run one after another and put back what they changed.
 */
const test = withServer(['desdemona', 'iago', 'hamlet', 'othello']);

const refusal = async (reply: Promise<{ status: number; body: Body }>) => {
  const { status, body } = await reply;
  return { status, code: body.code, msg: body.msg };
};
const badRequest = (msg: string) => ({ status: 400, code: 'BAD_REQUEST', msg });
const notOwner = { status: 400, code: 'UNAUTHORIZED_PRINCIPAL', msg: 'Must be an organization owner' };

const person = (userId: number, field: string) => (e: Event) =>
  e.type === 'realm_user' && e.op === 'update' && (e.person as Body).user_id === userId && field in (e.person as Body);

async function roleOf(client: ChatClient, userId: number): Promise<number> {
  return ((await ok(client, 'GET', `/users/${userId}`)).user as Body).role as number;
}

test.serial('an administrator renames a user, by id or by address; everyone hears it', async (t) => {
  const { iago, hamlet } = t.context;
  const queue = await register(hamlet, { event_types: ['realm_user'] });
  await ok(iago, 'PATCH', `/users/${IDS.othello}`, { full_name: 'Othello, the Moor' });
  t.like(await next(queue, person(IDS.othello, 'full_name')), { person: { full_name: 'Othello, the Moor' } });
  const byAddress = await ok(hamlet, 'GET', '/users/othello@zulip.com');
  t.like(byAddress.user, { user_id: IDS.othello, full_name: 'Othello, the Moor' });
  await ok(iago, 'PATCH', '/users/othello@zulip.com', { full_name: 'Othello' });
  t.like((await ok(hamlet, 'GET', '/users/othello@zulip.com')).user, { full_name: 'Othello' });
  t.deepEqual(await refusal(hamlet.get('/users/nobody@zulip.com')), badRequest('No such user'));
  t.deepEqual(await refusal(iago.patch('/users/nobody@zulip.com', { full_name: 'X Y' })), badRequest('No such user'));
  t.deepEqual(
    await refusal(iago.patch(`/users/${IDS.othello}`, { full_name: 'A*B' })),
    badRequest('Invalid characters in name!'),
  );
});

test.serial('members manage no one; unknown users and roles are refused', async (t) => {
  const { iago, hamlet } = t.context;
  t.deepEqual(
    await refusal(hamlet.patch(`/users/${IDS.othello}`, { full_name: 'Renamed' })),
    badRequest('Insufficient permission'),
  );
  t.deepEqual(
    await refusal(hamlet.patch(`/users/${IDS.othello}`, { role: ROLES.guest })),
    badRequest('Insufficient permission'),
  );
  t.deepEqual(await refusal(iago.patch('/users/99999', { role: ROLES.guest })), badRequest('No such user'));
  t.deepEqual(await refusal(iago.patch(`/users/${IDS.othello}`, { role: 250 })), badRequest('Invalid role'));
});

test.serial('roles: administrators change the others, owners alone make or unmake owners', async (t) => {
  const { desdemona, iago, hamlet } = t.context;
  const queue = await register(hamlet, { event_types: ['realm_user', 'user_group'] });
  await ok(iago, 'PATCH', `/users/${IDS.othello}`, { role: ROLES.moderator });
  t.like(await next(queue, person(IDS.othello, 'role')), { person: { role: ROLES.moderator } });
  const membership = (op: string, group: number) => (e: Event) =>
    e.type === 'user_group' && e.op === op && e.group_id === group && (e.user_ids as number[]).includes(IDS.othello);
  await next(queue, membership('remove_members', SYSTEM_GROUPS['role:members']));
  await next(queue, membership('add_members', SYSTEM_GROUPS['role:moderators']));
  t.is(await roleOf(hamlet, IDS.othello), ROLES.moderator);
  const members = await ok(hamlet, 'GET', `/user_groups/${SYSTEM_GROUPS['role:moderators']}/members`, {
    direct_member_only: true,
  });
  t.true((members.members as number[]).includes(IDS.othello));

  t.deepEqual(await refusal(iago.patch(`/users/${IDS.othello}`, { role: ROLES.owner })), notOwner);
  t.deepEqual(await refusal(iago.patch(`/users/${IDS.desdemona}`, { role: ROLES.member })), notOwner);
  t.deepEqual(
    await refusal(desdemona.patch(`/users/${IDS.desdemona}`, { role: ROLES.administrator })),
    badRequest('The owner permission cannot be removed from the only organization owner.'),
  );
  await ok(desdemona, 'PATCH', `/users/${IDS.othello}`, { role: ROLES.owner });
  t.is(await roleOf(hamlet, IDS.othello), ROLES.owner);
  await ok(desdemona, 'PATCH', `/users/${IDS.othello}`, { role: ROLES.member });
  t.is(await roleOf(hamlet, IDS.othello), ROLES.member);
});

test.serial('a new role counts at once: a demoted administrator loses administrator rights', async (t) => {
  const { desdemona, iago } = t.context;
  await ok(desdemona, 'PATCH', `/users/${IDS.iago}`, { role: ROLES.member });
  t.like(
    await refusal(iago.patch(`/users/${IDS.othello}`, { full_name: 'Othello' })),
    badRequest('Insufficient permission'),
  );
  await ok(desdemona, 'PATCH', `/users/${IDS.iago}`, { role: ROLES.administrator });
  t.is((await iago.patch(`/users/${IDS.othello}`, { full_name: 'Othello' })).status, 200);
});

test.serial("an administrator sets another user's status; a member may not", async (t) => {
  const { iago, hamlet } = t.context;
  const queue = await register(hamlet, { event_types: ['user_status'] });
  await ok(iago, 'POST', `/users/${IDS.hamlet}/status`, { status_text: 'set by iago', emoji_name: 'car' });
  t.like(await next(queue, (e) => e.type === 'user_status' && e.user_id === IDS.hamlet), {
    status_text: 'set by iago',
  });
  t.like((await ok(hamlet, 'GET', `/users/${IDS.hamlet}/status`)).status, {
    status_text: 'set by iago',
    emoji_name: 'car',
  });
  t.deepEqual(
    await refusal(hamlet.post(`/users/${IDS.othello}/status`, { status_text: 'not mine' })),
    badRequest('Insufficient permission'),
  );
  t.deepEqual(await refusal(iago.post('/users/99999/status', { status_text: 'x' })), badRequest('No such user'));
  await ok(iago, 'POST', `/users/${IDS.hamlet}/status`, { status_text: '', emoji_name: '' });
});

test.serial(
  "new_email: an administrator holding can_change_user_emails changes another's address at once",
  async (t) => {
    const { iago, desdemona, hamlet, server } = t.context;
    const created = await ok(iago, 'POST', '/users', {
      email: `moving-${Date.now()}@example.com`,
      password: 'long enough password',
      full_name: 'Moving Person',
    });
    const userId = created.user_id as number;
    const watcher = await register(hamlet, { event_types: ['realm_user'] });
    const target = `moved-${Date.now()}@example.com`;

    t.deepEqual(
      await refusal(hamlet.patch(`/users/${userId}`, { new_email: target })),
      badRequest('Insufficient permission'),
    );
    // desdemona is an owner without the special permission.
    t.deepEqual(
      await refusal(desdemona.patch(`/users/${userId}`, { new_email: target })),
      badRequest('User not authorized to change user emails'),
    );
    t.deepEqual(
      await refusal(iago.patch(`/users/${userId}`, { new_email: 'not-an-address' })),
      badRequest('Invalid address.'),
    );
    t.deepEqual(
      await refusal(iago.patch(`/users/${userId}`, { new_email: 'hamlet@zulip.com' })),
      badRequest('Already has an account.'),
    );

    await ok(iago, 'PATCH', `/users/${userId}`, { new_email: target });
    const changed = await next(watcher, person(userId, 'delivery_email'));
    t.deepEqual(changed.person, { user_id: userId, delivery_email: target });
    const api = await next(watcher, person(userId, 'new_email'));
    t.deepEqual(api.person, { user_id: userId, new_email: target });
    t.like((await ok(iago, 'GET', `/users/${userId}`)).user as Body, { email: target, delivery_email: target });
    const login = await server.client.post('/fetch_api_key', { username: target, password: 'long enough password' });
    t.is(login.status, 200, 'the account logs in with its new address');

    // By address too; the same address again changes nothing and needs no permission.
    const back = `back-${Date.now()}@example.com`;
    await ok(iago, 'PATCH', `/users/${target}`, { new_email: back });
    t.like((await ok(iago, 'GET', `/users/${userId}`)).user as Body, { delivery_email: back });
    await ok(desdemona, 'PATCH', `/users/${userId}`, { new_email: back });
  },
);
