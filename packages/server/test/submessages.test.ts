import type { ChatClient } from '@chat/testkit';
import { IDS, withServer } from './context.js';
import { absentBefore, next, none, register } from './queues.js';
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

test('a vote reaches only who has the message: not a voter who is not subscribed, until his reaction gives it to him', async (t) => {
  const { iago, hamlet, othello } = t.context;
  await bodyOf(
    iago.post('/channels/create', { name: 'widgets public', subscribers: JSON.stringify([IDS.iago, IDS.hamlet]) }),
  );
  const [qi, qh, qo] = [iago, hamlet, othello].map((c) => register(c, { event_types: '["submessage","reaction"]' }));
  const content = '/poll Tea or coffee?\nTea\nCoffee';
  const sent = await ok(iago, 'POST', '/messages', { type: 'stream', to: 'widgets public', topic: 'drinks', content });
  const id = sent.id as number;
  // Othello sees the public channel without being subscribed: he may vote, but he does not have the message.
  const vote = '{"type":"vote","key":"canned,1","vote":1}';
  await bodyOf(submit(othello, id, vote));
  for (const queue of [await qi, await qh]) {
    t.like(await next(queue, (e) => e.type === 'submessage' && e.message_id === id), { sender_id: IDS.othello });
  }
  // His own reaction after it, from the same channel, reaches him (the actor always hears): the vote did not.
  await bodyOf(othello.post(`/messages/${id}/reactions`, { emoji_name: 'smile' }));
  t.true(
    await absentBefore(
      await qo,
      (e) => e.type === 'reaction',
      (e) => e.type === 'submessage',
    ),
  );
  // The reaction gave him the message (the original's historical row): Hamlet's later vote reaches him.
  await bodyOf(submit(hamlet, id, '{"type":"vote","key":"canned,0","vote":1}'));
  t.like(await next(await qo, (e) => e.type === 'submessage' && e.message_id === id), { sender_id: IDS.hamlet });
});

const zform = {
  widget_type: 'zform',
  extra_data: {
    type: 'choices',
    heading: 'Pick one',
    choices: [{ short_name: 'A', long_name: 'Apple', reply: 'apple' }],
  },
};

test('widget_content gives a message its widget whole, checked as the original checks it', async (t) => {
  const { iago, hamlet } = t.context;
  const send = (widget_content: string, content = 'choose') =>
    hamlet.post<Body>('/messages', { type: 'private', to: JSON.stringify([IDS.iago]), content, widget_content });
  // It wins over the widget the content would start.
  const sent = await bodyOf(send(JSON.stringify(zform), '/poll Ignored?'));
  const id = sent.id as number;
  const [listed] = await submessagesOf(iago, id);
  t.deepEqual(listed, [
    {
      id: id * 1_000_000,
      message_id: id,
      sender_id: IDS.hamlet,
      msg_type: 'widget',
      content:
        '{"widget_type": "zform", "extra_data": {"type": "choices", "heading": "Pick one", ' +
        '"choices": [{"short_name": "A", "long_name": "Apple", "reply": "apple"}]}}',
    },
  ]);
  const cases: Array<[unknown, string]> = [
    ['{{{', 'Widgets: API programmer sent invalid JSON content'],
    [[1], 'Widgets: widget_content is not a dict'],
    [{ color: 'red' }, 'Widgets: widget_type is not in widget_content'],
    [{ widget_type: 'zform' }, 'Widgets: extra_data is not in widget_content'],
    [{ widget_type: 'zform', extra_data: 3 }, 'Widgets: extra_data is not a dict'],
    [{ widget_type: 'poll', extra_data: {} }, 'Widgets: unknown widget type: poll'],
    [{ widget_type: 'zform', extra_data: {} }, 'Widgets: zform is missing type field'],
    [{ widget_type: 'zform', extra_data: { type: 'menu' } }, 'Widgets: unknown zform type: menu'],
    [{ ...zform, extra_data: { ...zform.extra_data, choices: 99 } }, 'Widgets: extra_data["choices"] is not a list'],
    [
      { ...zform, extra_data: { ...zform.extra_data, choices: [99] } },
      'Widgets: extra_data["choices"][0] is not a dict',
    ],
    [
      { ...zform, extra_data: { ...zform.extra_data, choices: [{ long_name: 'x', reply: 'y' }] } },
      'Widgets: short_name key is missing from extra_data["choices"][0]',
    ],
  ];
  for (const [widget, msg] of cases) {
    await refused(t, send(typeof widget === 'string' ? widget : JSON.stringify(widget)), msg);
  }
});
