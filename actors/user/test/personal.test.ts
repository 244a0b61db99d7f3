import test from 'ava';
import { BehaviorTestKit } from '@chat/runtime/testkit';
import { userBehavior } from '../src/index.js';

const kit = () => new BehaviorTestKit(userBehavior, { key: 'zulip:5', now: Date.UTC(2026, 0, 1) });

/** The events a result tells the user's queues. */
const told = (result: { tells: Array<{ body: unknown }> }) =>
  result.tells.flatMap((tell) => (tell.body as { events: unknown[] }).events);

test('saved snippets are numbered in order and a deleted id is never given again', async (t) => {
  const k = kit();
  await k.run({ type: 'user.addQueue', queue_id: 'q1' });
  const ids = [];
  for (const title of ['a', 'b']) ids.push((await k.run({ type: 'user.createSnippet', title, content: title })).reply);
  t.deepEqual(ids, [{ saved_snippet_id: 1 }, { saved_snippet_id: 2 }]);
  const removed = await k.run({ type: 'user.deleteSnippet', saved_snippet_id: 2 });
  t.deepEqual(told(removed), [{ type: 'saved_snippets', op: 'remove', saved_snippet_id: 2 }]);
  const third = await k.run({ type: 'user.createSnippet', title: 'c', content: 'c' });
  t.deepEqual(third.reply, { saved_snippet_id: 3 });
  const again = await k.run({ type: 'user.deleteSnippet', saved_snippet_id: 2 });
  t.is(again.error?.message, 'Saved snippet does not exist.');
  t.deepEqual(k.replay(), k.state);
});

const item = (id: number, kind: 'message' | 'reminder') => ({
  id,
  kind,
  failed: false,
  request: { type: 'private', to: [5], content: 'hi' },
  rendered_content: '<p>hi</p>',
  scheduled_delivery_timestamp: Date.UTC(2026, 0, 2) / 1000,
  target_message_id: kind === 'reminder' ? 30 : undefined,
  send: { key: 'zulip:dm:5', command: { type: 'message.send' } },
});

test('a scheduled message and a reminder are removed only under their own kind, each telling its section', async (t) => {
  const k = kit().given([
    { type: 'scheduledAdded', item: item(1, 'message') },
    { type: 'scheduledAdded', item: item(2, 'reminder') },
  ]);
  await k.run({ type: 'user.addQueue', queue_id: 'q1' });
  const wrongKind = await k.run({ type: 'user.unschedule', kind: 'message', id: 2 });
  t.is(wrongKind.error?.message, 'Scheduled message does not exist');
  const wrongReminder = await k.run({ type: 'user.unschedule', kind: 'reminder', id: 1 });
  t.is(wrongReminder.error?.message, 'Reminder does not exist');
  const message = await k.run({ type: 'user.unschedule', kind: 'message', id: 1 });
  t.deepEqual(told(message), [{ type: 'scheduled_messages', op: 'remove', scheduled_message_id: 1 }]);
  const reminder = await k.run({ type: 'user.unschedule', kind: 'reminder', id: 2 });
  t.deepEqual(told(reminder), [{ type: 'reminders', op: 'remove', reminder_id: 2 }]);
  t.deepEqual((await k.run({ type: 'user.scheduled', kind: 'message' })).reply, []);
});
