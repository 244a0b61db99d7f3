import type { ChatClient } from '@chat/testkit';
import { IDS, withServer } from './context.js';
import { next, none, register } from './queues.js';
import { bodyOf, fails, ok, refused, type Body } from './replies.js';

/**
 * Widgets through the public interface: a /poll message starts with its
 * widget submessage, `POST /submessage` adds votes (the reference has no
 * such operation; the original serves it), everyone who received the
 * message hears a `submessage` event, and message objects carry them all.
 */
const test = withServer(['iago', 'hamlet', 'othello']);

type Submessage = { id: number; message_id: number; sender_id: number; msg_type: string; content: string };
type Message = Body & { submessages: Submessage[] };

async function privateChannel(creator: ChatClient, name: string, subscribers: number[]) {
  const params = { name, subscribers: JSON.stringify(subscribers), invite_only: true };
  await bodyOf(creator.post('/channels/create', params));
}

const submit = (client: ChatClient, message_id: number, content: string, msg_type = 'widget') =>
  client.post<Body>('/submessage', { message_id, msg_type, content });

async function submessagesOf(client: ChatClient, id: number): Promise<Submessage[][]> {
  const listed = await ok(client, 'GET', '/messages', { anchor: id, num_before: 0, num_after: 0, narrow: '[]' });
  const single = (await ok(client, 'GET', `/messages/${id}`)).message as Message;
  return [(listed.messages as Message[])[0]!.submessages, single.submessages];
}

test('a poll: its widget comes with the message, votes reach who received it, message objects list them by id', async (t) => {
  const { iago, hamlet, othello } = t.context;
  await privateChannel(iago, 'widgets poll', [IDS.iago, IDS.hamlet]);
  const [qi, qh, qo] = [iago, hamlet, othello].map((c) => register(c, { event_types: '["message","submessage"]' }));
  const sent = await ok(iago, 'POST', '/messages', {
    type: 'stream',
    to: 'widgets poll',
    topic: 'lunch',
    content: '/poll Where to eat?\nPizza\nSushi',
  });
  const id = sent.id as number;
  const widget = {
    id: id * 1_000_000,
    message_id: id,
    sender_id: IDS.iago,
    msg_type: 'widget',
    content: '{"widget_type": "poll", "extra_data": {"question": "Where to eat?", "options": ["Pizza", "Sushi"]}}',
  };
  const arrived = await next(await qh, (e) => e.type === 'message' && (e.message as Message).id === id);
  t.deepEqual((arrived.message as Message).submessages, [widget]);

  const vote = '{"type":"vote","key":"canned,0","vote":1}';
  t.deepEqual(await bodyOf(submit(hamlet, id, vote)), { result: 'success', msg: '' });
  const event = { type: 'submessage', msg_type: 'widget', message_id: id, submessage_id: id * 1_000_000 + 1 };
  for (const queue of [await qi, await qh]) {
    const heard = await next(queue, (e) => e.type === 'submessage' && e.message_id === id);
    t.like(heard, { ...event, sender_id: IDS.hamlet, content: vote });
  }
  t.true(await none(await qo, (e) => e.message_id === id));
  const both = [
    widget,
    { id: id * 1_000_000 + 1, message_id: id, sender_id: IDS.hamlet, msg_type: 'widget', content: vote },
  ];
  t.deepEqual(await submessagesOf(hamlet, id), [both, both]);

  // Only the author changes the question; outsiders cannot reach the message.
  await refused(
    t,
    submit(hamlet, id, '{"type":"question","question":"Dinner?"}'),
    "You can't edit a question unless you are the author.",
  );
  await bodyOf(submit(iago, id, '{"type":"question","question":"Dinner?"}'));
  await refused(t, submit(hamlet, id, '{"type":"vote","key":"canned,0","vote":2}'), 'Invalid poll data["vote"]');
  await refused(t, submit(hamlet, id, '{"type":"vote"'), 'Invalid json for submessage');
  await refused(t, submit(othello, id, vote), 'Invalid message(s)');
  t.is((await submessagesOf(hamlet, id))[0].length, 3);
});

test('a plain message takes any JSON, but from others only after its sender added one', async (t) => {
  const { iago, hamlet } = t.context;
  const sent = await ok(iago, 'POST', '/messages', {
    type: 'private',
    to: JSON.stringify([IDS.hamlet]),
    content: 'no widget',
  });
  const id = sent.id as number;
  t.deepEqual(await submessagesOf(hamlet, id), [[], []]);
  await refused(t, submit(hamlet, id, '{}'), 'You cannot attach a submessage to this message.');
  await bodyOf(submit(iago, id, '{"anything": [1]}', 'zform'));
  await bodyOf(submit(hamlet, id, '"text"', 'reply'));
  const [listed] = await submessagesOf(hamlet, id);
  t.deepEqual(
    listed.map((s) => [s.sender_id, s.msg_type, s.content]),
    [
      [IDS.iago, 'zform', '{"anything": [1]}'],
      [IDS.hamlet, 'reply', '"text"'],
    ],
  );
  await refused(t, submit(hamlet, 999_999_999, '{}'), 'Invalid message(s)');
  await fails(
    t,
    hamlet.post('/submessage', { message_id: id, msg_type: 'widget' }),
    'REQUEST_VARIABLE_MISSING',
    "Missing 'content' argument",
  );
});
