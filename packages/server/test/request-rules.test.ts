import type { ChatClient } from '@chat/testkit';
import { channelId, withServer } from './context.js';
import type { Body } from './queues.js';

/**
 * Rules of single requests the original enforces: a channel's retention is
 * the owners' to set, the empty topic cannot be resolved, an event queue's
 * narrow takes only the operators the original filters events by, and one
 * subscription request names a bounded number of channels.
 */
const test = withServer(['desdemona', 'iago', 'hamlet']);

const refusal = async (reply: Promise<{ status: number; body: Body }>) => {
  const { status, body } = await reply;
  return { status, code: body.code, msg: body.msg };
};

const subscribe = (client: ChatClient, names: string[], extra: Body = {}) =>
  client.post<Body>('/users/me/subscriptions', {
    subscriptions: JSON.stringify(names.map((name) => ({ name }))),
    ...extra,
  });

test('only owners set a channel’s message retention, when creating it or later', async (t) => {
  const { desdemona, iago } = t.context;
  const notOwner = { status: 400, code: 'UNAUTHORIZED_PRINCIPAL', msg: 'Must be an organization owner' };
  t.deepEqual(await refusal(subscribe(iago, ['kept by admin'], { message_retention_days: 10 })), notOwner);
  t.like((await iago.get<Body>('/get_stream_id', { stream: 'kept by admin' })).body, { result: 'error' });
  t.is((await subscribe(desdemona, ['kept by owner'], { message_retention_days: 10 })).status, 200);
  const id = await channelId(desdemona, 'kept by owner');
  const info = await desdemona.get<{ stream: Body }>(`/streams/${id}`);
  t.is(info.body.stream.message_retention_days, 10);

  t.deepEqual(await refusal(iago.patch(`/streams/${id}`, { message_retention_days: 20 })), notOwner);
  t.is((await iago.patch(`/streams/${id}`, { description: 'administrators change the rest' })).status, 200);
  t.is((await desdemona.patch(`/streams/${id}`, { message_retention_days: 'unlimited' })).status, 200);
  t.is((await desdemona.get<{ stream: Body }>(`/streams/${id}`)).body.stream.message_retention_days, -1);
  t.deepEqual(await refusal(desdemona.patch(`/streams/${id}`, { message_retention_days: 0 })), {
    status: 400,
    code: 'BAD_REQUEST',
    msg: "Bad value for 'message_retention_days': 0",
  });
});

test('the empty topic cannot be marked resolved, in either spelling', async (t) => {
  const { hamlet } = t.context;
  const send = async (topic: string) =>
    (await hamlet.post<{ id: number }>('/messages', { type: 'stream', to: 'Denmark', topic, content: 'x' })).body.id;
  const general = await send('');
  for (const topic of ['✔ ', '✔', '✔ general chat']) {
    t.deepEqual(
      await refusal(hamlet.patch(`/messages/${general}`, { topic, propagate_mode: 'change_all' })),
      { status: 400, code: 'BAD_REQUEST', msg: 'General chat cannot be marked as resolved' },
      topic,
    );
  }
  const named = await send('resolvable');
  t.is((await hamlet.patch(`/messages/${named}`, { topic: '✔ resolvable', propagate_mode: 'change_all' })).status, 200);
});

test('a queue narrow takes channel, topic, sender and is operators only', async (t) => {
  const { hamlet } = t.context;
  const register = (narrow: unknown) => refusal(hamlet.post('/register', { event_types: ['message'], narrow }));
  t.like(await register([['search', 'word']]), {
    status: 400,
    code: 'BAD_REQUEST',
    msg: 'Operator search not supported.',
  });
  t.like(await register([{ operator: 'dm', operand: [11] }]), { msg: 'Operator dm not supported.' });
  t.like(await register([['is', 'followed']]), { msg: 'Operand followed not supported.' });
  for (const narrow of [
    [['stream', 'Denmark']],
    [
      ['channel', 'Denmark'],
      ['topic', 'x'],
    ],
    [['is', 'starred']],
  ]) {
    t.is((await register(narrow)).status, 200, JSON.stringify(narrow));
  }
});

test('one subscription request names at most 500 channels, and a refused one creates none', async (t) => {
  const { hamlet } = t.context;
  const names = Array.from({ length: 501 }, (_, i) => `bulk ${i}`);
  const tooMany = { status: 400, code: 'BAD_REQUEST', msg: 'Too many channels in one request (limit: 500)' };
  t.deepEqual(await refusal(subscribe(hamlet, names)), tooMany);
  t.like((await hamlet.get<Body>('/get_stream_id', { stream: 'bulk 0' })).body, { result: 'error' });
  t.deepEqual(
    await refusal(hamlet.delete('/users/me/subscriptions', { subscriptions: JSON.stringify(names) })),
    tooMany,
  );
  t.deepEqual(
    await refusal(hamlet.patch('/users/me/subscriptions', { add: JSON.stringify(names.map((name) => ({ name }))) })),
    tooMany,
  );
});
