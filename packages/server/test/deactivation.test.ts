import { assertResponse } from '@chat/testkit';
import { IDS, withServer } from './context.js';
import { mailsTo } from './invite-support.js';
import { newPerson } from './people.js';
import { next, register } from './queues.js';

/**
 * Deactivating and reactivating accounts: who may, what a deactivated
 * account can still do (nothing), and what others see.
 */
const test = withServer(['iago', 'desdemona', 'hamlet', 'shiva']);

test('an administrator deactivates a member: the account stops working, leaves its groups, and everyone hears', async (t) => {
  const { iago, hamlet } = t.context;
  const leaver = await newPerson(t.context, 'Leaver');
  const group = await iago.post<{ group_id: number }>('/user_groups/create', {
    name: 'leavers club',
    description: 'for the test',
    members: JSON.stringify([leaver.user_id, IDS.hamlet]),
  });
  t.is(group.status, 200, JSON.stringify(group.body));
  const queue = await register(hamlet, { event_types: JSON.stringify(['realm_user']) });

  const refused = await hamlet.delete(`/users/${leaver.user_id}`);
  t.is(refused.status, 400);
  t.like(refused.body, { code: 'BAD_REQUEST', msg: 'Insufficient permission' });

  const done = await iago.delete(`/users/${leaver.user_id}`);
  t.is(done.status, 200, JSON.stringify(done.body));
  assertResponse('DELETE', `/users/${leaver.user_id}`, 200, done.body);
  const event = await next(
    queue,
    (e) => e.type === 'realm_user' && (e.person as { user_id: number }).user_id === leaver.user_id,
  );
  t.deepEqual(event.person, { user_id: leaver.user_id, is_active: false });

  const locked = await leaver.client.get('/users/me');
  t.is(locked.status, 401);
  t.is(locked.body.code, 'USER_DEACTIVATED');
  const profile = await hamlet.get<{ user: { is_active: boolean } }>(`/users/${leaver.user_id}`);
  t.false(profile.body.user.is_active);
  const members = await hamlet.get<{ members: number[] }>(`/user_groups/${group.body.group_id}/members`);
  t.deepEqual(members.body.members, [IDS.hamlet]);
  t.is((await iago.delete(`/users/${leaver.user_id}`)).status, 400);

  const back = await iago.post(`/users/${leaver.user_id}/reactivate`);
  t.is(back.status, 200, JSON.stringify(back.body));
  const returned = await next(
    queue,
    (e) => e.type === 'realm_user' && (e.person as Record<string, unknown>).is_active === true,
  );
  t.like(returned.person, { user_id: leaver.user_id });
  t.is((await leaver.client.get('/users/me')).status, 200);
  const again = await iago.post(`/users/${leaver.user_id}/reactivate`);
  t.like(again.body, { code: 'BAD_REQUEST', msg: 'User is already active' });
});

test('owners are protected: only an owner deactivates one, and never the only one', async (t) => {
  const { iago, desdemona, shiva } = t.context;
  const byAdmin = await iago.delete(`/users/${IDS.desdemona}`);
  t.like(byAdmin.body, { code: 'BAD_REQUEST', msg: 'Must be an organization owner' });
  const last = await desdemona.delete(`/users/${IDS.desdemona}`);
  t.like(last.body, { code: 'BAD_REQUEST', msg: 'Cannot deactivate the only organization owner' });
  const byModerator = await shiva.delete(`/users/${IDS.hamlet}`);
  t.like(byModerator.body, { code: 'BAD_REQUEST', msg: 'Insufficient permission' });
  const unknown = await iago.delete('/users/9999');
  t.like(unknown.body, { code: 'BAD_REQUEST', msg: 'No such user' });
});

test.serial('deactivation_notification_comment mails the deactivated user a notice, quoting the comment; at most 2,000 characters', async (t) => {
  const { iago, server } = t.context;
  const quiet = await newPerson(t.context, 'Quiet');
  t.is((await iago.delete(`/users/${quiet.user_id}`)).status, 200);
  t.deepEqual(await mailsTo(server, quiet.email), [], 'no comment, no mail');

  const leaver = await newPerson(t.context, 'Noticed');
  const long = await iago.delete(`/users/${leaver.user_id}`, { deactivation_notification_comment: 'x'.repeat(2001) });
  t.is(long.status, 400);
  t.like(long.body, {
    code: 'BAD_REQUEST',
    msg: 'deactivation_notification_comment is too long (limit: 2000 characters)',
  });
  t.is((await leaver.client.get('/users/me')).status, 200, 'refused, so still active');

  const done = await iago.delete(`/users/${leaver.user_id}`, { deactivation_notification_comment: 'Farewell!' });
  t.is(done.status, 200, JSON.stringify(done.body));
  const [mail, ...more] = await mailsTo(server, leaver.email);
  t.is(more.length, 0);
  t.is(mail?.subject, 'Notification of account deactivation on Zulip Dev');
  t.regex(mail?.text ?? '', /has been deactivated, and you will no longer be able to log in/);
  t.regex(mail?.text ?? '', /The administrators provided the following comment:\n\nFarewell!/);

  const plain = await newPerson(t.context, 'Plain');
  t.is((await iago.delete(`/users/${plain.user_id}`, { deactivation_notification_comment: '' })).status, 200);
  const [notice] = await mailsTo(server, plain.email);
  t.truthy(notice, 'an empty comment still asks for the notice');
  t.notRegex(notice?.text ?? '', /comment/);
});
