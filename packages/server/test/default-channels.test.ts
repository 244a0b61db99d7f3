import { channelId, withServer } from './context.js';
import { next, register, snapshotOf, type Body, type Event } from './queues.js';
import { ok } from './replies.js';

/**
 * Default channels: administrators add and remove them (POST and DELETE
 * /default_streams), everyone but guests hears `default_streams` with the
 * ids, and the register's `realm_default_streams` follows.
 */
const test = withServer(['iago', 'hamlet', 'polonius']);

const refusal = async (reply: Promise<{ status: number; body: Body }>) => {
  const { status, body } = await reply;
  return { status, code: body.code, msg: body.msg };
};
const defaults = (e: Event) => e.type === 'default_streams';

test.serial('administrators add and remove default channels; members hear it, the snapshot follows', async (t) => {
  const { iago, hamlet, polonius } = t.context;
  const denmark = await channelId(iago, 'Denmark');
  const queue = await register(hamlet, { event_types: ['default_streams'] });
  await ok(iago, 'POST', '/default_streams', { stream_id: denmark });
  t.true(((await next(queue, defaults)).default_streams as number[]).includes(denmark));
  const snapshot = await snapshotOf(hamlet, { fetch_event_types: ['default_streams'] });
  t.true((snapshot.realm_default_streams as number[]).includes(denmark));
  t.deepEqual((await snapshotOf(polonius, { fetch_event_types: ['default_streams'] })).realm_default_streams, []);

  await ok(iago, 'DELETE', '/default_streams', { stream_id: denmark });
  await next(queue, (e) => defaults(e) && !(e.default_streams as number[]).includes(denmark));
  const after = await snapshotOf(hamlet, { fetch_event_types: ['default_streams'] });
  t.false((after.realm_default_streams as number[]).includes(denmark));
});

test.serial('members may not; private and unknown channels are refused', async (t) => {
  const { iago, hamlet } = t.context;
  const denmark = await channelId(iago, 'Denmark');
  t.deepEqual(await refusal(hamlet.post('/default_streams', { stream_id: denmark })), {
    status: 400,
    code: 'UNAUTHORIZED_PRINCIPAL',
    msg: 'Must be an organization administrator',
  });
  const secret = (
    await ok(iago, 'POST', '/channels/create', { name: 'not default', subscribers: '[11]', invite_only: true })
  ).id as number;
  t.deepEqual(await refusal(iago.post('/default_streams', { stream_id: secret })), {
    status: 400,
    code: 'BAD_REQUEST',
    msg: 'Private channels cannot be made default.',
  });
  t.deepEqual(await refusal(iago.delete('/default_streams', { stream_id: 99999 })), {
    status: 400,
    code: 'BAD_REQUEST',
    msg: 'Invalid channel ID',
  });
});
