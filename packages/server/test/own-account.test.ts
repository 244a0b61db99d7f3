import { realmAddress, ROLES } from '@chat/protocol';
import { assertResponse } from '@chat/testkit';
import { withServer } from './context.js';
import { newPerson } from './people.js';
import { next, register } from './queues.js';
import { succeeds } from './replies.js';

/** DELETE /users/me: leaving on one's own, and the original's rule about the last user and owner. */
const test = withServer(['iago', 'desdemona']);

test('a member deactivates their own account: it can no longer act, and everyone hears it', async (t) => {
  const alice = await newPerson(t.context, 'Alice Leaving');
  const queue = await register(t.context.iago, { event_types: ['realm_user'] });
  await succeeds('DELETE', '/users/me', alice.client.delete('/users/me'));
  const event = await next(
    queue,
    (e) => e.type === 'realm_user' && (e.person as { user_id: number }).user_id === alice.user_id,
  );
  t.like(event, { op: 'update', person: { is_active: false } });
  const after = await alice.client.get('/users/me');
  t.is(after.status, 401);
  t.is(after.body.code, 'USER_DEACTIVATED');
});

test('the only owner cannot leave', async (t) => {
  const reply = await t.context.desdemona.delete('/users/me');
  t.is(reply.status, 400);
  assertResponse('DELETE', '/users/me', 400, reply.body);
  t.like(reply.body, {
    code: 'CANNOT_DEACTIVATE_LAST_USER',
    msg: 'Cannot deactivate the only organization owner',
    entity: 'organization owner',
    is_last_owner: true,
  });
});

test('the only user of an organization cannot leave', async (t) => {
  const { server } = t.context;
  const [owner] = await server.server.node.actors.ask(realmAddress('alone'), {
    type: 'realm.create',
    name: 'A lonely organization',
    description: '',
    development: false,
    users: [{ email: 'solo@alone.example', full_name: 'Solo', role: ROLES.owner }],
    first_user_id: 3000,
  });
  const solo = server.client.inRealm('alone').as({ email: owner!.email, apiKey: owner!.api_key });
  const reply = await solo.delete('/users/me');
  t.is(reply.status, 400);
  t.like(reply.body, {
    code: 'CANNOT_DEACTIVATE_LAST_USER',
    msg: 'Cannot deactivate the only user',
    entity: 'user',
    is_last_owner: false,
  });
});
