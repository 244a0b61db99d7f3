import test from 'ava';
import { ROLES, type ChannelCommand, type Principal } from '@chat/protocol';
import { widgetContent } from '../src/widgets/parse.js';
import { channel, conversation, created, person, prepared, send } from './fixtures.js';

const [sender, voter, outsider] = [person(2), person(3), person(4, ROLES.guest)];

const add = (actor: Principal, message_id: number, content: string, msg_type = 'widget') =>
  ({ type: 'submessage.add', actor, message_id, msg_type, content }) as ChannelCommand;

/** A channel of 2 and 3 with one message of 2 saying `content`; its id. */
async function withMessage(content: string) {
  const kit = channel(10, created(10, [2, 3]));
  const sent = await kit.run(send(sender, 'lunch', { prepared: prepared(content) }));
  return { kit, id: (sent.reply as { id: number }).id };
}

test('a /poll message gets the widget submessage of its sender, in the JSON text the original writes', async (t) => {
  const { kit, id } = await withMessage('/poll Where to eat?\n- Pizza\n* Sushi\n\nTacos');
  const extra = '{"question": "Where to eat?", "options": ["Pizza", "Sushi", "Tacos"]}';
  t.deepEqual(kit.state.messages[0]!.submessages, [
    {
      id: id * 1_000_000,
      message_id: id,
      sender_id: 2,
      msg_type: 'widget',
      content: `{"widget_type": "poll", "extra_data": ${extra}}`,
    },
  ]);
  const plain = await withMessage('/polling is not a widget');
  t.is(plain.kit.state.messages[0]!.submessages, undefined);
});

test('a /todo message lists its tasks with descriptions, non-ASCII escaped as Python does', async (t) => {
  t.is(
    widgetContent('/todo Errands\nBuy milk: two litres\ncafé'),
    '{"widget_type": "todo", "extra_data": {"task_list_title": "Errands", "tasks": [' +
      '{"task": "Buy milk", "desc": "two litres"}, {"task": "caf\\u00e9", "desc": ""}]}}',
  );
  t.is(widgetContent('/poll'), '{"widget_type": "poll", "extra_data": {"question": "", "options": []}}');
  t.is(widgetContent(' /poll leading space'), undefined);
});

test('others may add a submessage only after the sender has; it reaches everyone who received the message', async (t) => {
  const { kit, id } = await withMessage('a plain message');
  const early = await kit.run(add(voter, id, '{}'));
  t.is(early.error?.message, 'You cannot attach a submessage to this message.');
  t.is((await kit.run(add(sender, id, '{"hello": 1}', 'greeting'))).error, undefined);
  const later = await kit.run(add(voter, id, '[1, 2]'));
  t.is(later.error, undefined);
  t.deepEqual(
    kit.state.messages[0]!.submessages!.map((s) => [s.id - id * 1_000_000, s.sender_id, s.msg_type]),
    [
      [0, 2, 'greeting'],
      [1, 3, 'widget'],
    ],
  );
  const fanout = later.fanouts[0]!;
  t.deepEqual((fanout as { keys: string[] }).keys.sort(), ['zulip:2', 'zulip:3']);
  t.deepEqual((fanout.body as { events: unknown[] }).events, [
    {
      type: 'submessage',
      msg_type: 'widget',
      message_id: id,
      submessage_id: id * 1_000_000 + 1,
      sender_id: 3,
      content: '[1, 2]',
    },
  ]);
});

test('a submessage must be JSON, on a message the caller can access', async (t) => {
  const { kit, id } = await withMessage('hello');
  t.is((await kit.run(add(sender, id, 'not json'))).error?.message, 'Invalid json for submessage');
  t.is((await kit.run(add(sender, id + 1, '{}'))).error?.message, 'Invalid message(s)');
  t.is((await kit.run(add(outsider, id, '{}'))).error?.message, 'Invalid message(s)');
  const dm = conversation('zulip:dm:2,3');
  const sent = await dm.run(send(sender, '', { prepared: prepared('/todo') }));
  const dmId = (sent.reply as { id: number }).id;
  t.is((await dm.run(add(person(5), dmId, '{}'))).error?.message, 'Invalid message(s)');
  t.is((await dm.run(add(voter, dmId, '{"type":"strike","key":"1,2"}'))).error, undefined);
});

const refusal = async (content: string, actor = voter, widget = '/poll Lunch?') => {
  const { kit, id } = await withMessage(widget);
  return (await kit.run(add(actor, id, content))).error?.message;
};

test('a poll takes votes, new options and (from its author) a question, as the original checks them', async (t) => {
  t.is(await refusal('{"type":"vote","key":"2,1","vote":1}'), undefined);
  t.is(await refusal('{"type":"vote","key":"2,1","vote":-1}'), undefined);
  t.is(await refusal('{"type":"new_option","option":"Soup","idx":3}'), undefined);
  t.is(await refusal('{"type":"question","question":"Dinner?"}', sender), undefined);
  t.is(
    await refusal('{"type":"question","question":"Dinner?"}'),
    "You can't edit a question unless you are the author.",
  );
  t.is(await refusal('{"type":"vote","key":"2,1","vote":2}'), 'Invalid poll data["vote"]');
  t.is(await refusal('{"type":"vote","key":1,"vote":1}'), 'poll data["key"] is not a string');
  t.is(await refusal('{"type":"vote","vote":1}'), 'key key is missing from poll data');
  t.is(await refusal('{"type":"vote","key":"2,1","vote":1,"extra":0}'), 'Unexpected arguments: extra');
  t.is(await refusal('{"type":"new_option","option":"Soup","idx":1001}'), 'poll data["idx"] is too large');
  t.is(await refusal('{"type":"new_option","option":"Soup","idx":-1}'), 'poll data["idx"] is too small');
  t.is(await refusal('{"type":"rename"}'), 'Unknown type for poll data: rename');
  t.is(await refusal('[]'), 'poll data is not a dict');
  t.is(await refusal('{"key":"x"}'), 'type key is missing from poll data');
  t.is(await refusal('{"type":7}'), 'poll data["type"] is not a string');
});

test('a todo list takes tasks, strikes and (from its author) a title', async (t) => {
  const todo = (content: string, actor = voter) => refusal(content, actor, '/todo Chores');
  t.is(await todo('{"type":"new_task","key":4,"task":"Dishes","desc":"","completed":false}'), undefined);
  t.is(await todo('{"type":"strike","key":"4,3"}'), undefined);
  t.is(await todo('{"type":"new_task_list_title","title":"Home"}', sender), undefined);
  t.is(
    await todo('{"type":"new_task_list_title","title":"Home"}'),
    "You can't edit the task list title unless you are the author.",
  );
  t.is(
    await todo('{"type":"new_task","key":4,"task":"Dishes","desc":"","completed":"no"}'),
    'todo data["completed"] is not a boolean',
  );
  t.is(
    await todo('{"type":"new_task","key":"4","task":"Dishes","desc":"","completed":false}'),
    'todo data["key"] is not an integer',
  );
  t.is(await todo('{"type":"vote"}'), 'Unknown type for todo data: vote');
});

test('submessages survive a replay of the journal', async (t) => {
  const { kit, id } = await withMessage('/poll Q');
  await kit.run(add(voter, id, '{"type":"vote","key":"canned,0","vote":1}'));
  t.is(kit.state.messages[0]!.submessages!.length, 2);
  t.deepEqual(kit.replay(), kit.state);
});
