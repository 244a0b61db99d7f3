import { deepStrictEqual } from 'node:assert';
import test from 'ava';
import fc from 'fast-check';
import type { Command } from '@chat/protocol';
import { BehaviorTestKit } from '@chat/runtime/testkit';
import { userBehavior } from '../src/index.js';

// Recovery rebuilds an actor from its journal alone: whatever commands it
// took, replaying the records they wrote must give the state the live actor
// has (apply deterministic, nothing kept outside the events, no event that
// shares an object the decision later changes).

const channelId = fc.integer({ min: 1, max: 4 });
const messageId = fc.integer({ min: 1, max: 60 });
const key = fc.constantFrom('zulip:1', 'zulip:2', 'zulip:dm:5,7');
const topic = fc.constantFrom('lunch', 'Lunch', 'dinner', '');

const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({
    type: fc.constant('user.subscribed'),
    channel_id: channelId,
    last_message_id: fc.integer({ min: 0, max: 60 }),
  }),
  fc.record({ type: fc.constant('user.unsubscribed'), channel_id: channelId, name: fc.constant('c') }),
  fc.record({
    type: fc.constant('user.conversation'),
    key: fc.constant('zulip:dm:5,7'),
    user_ids: fc.constant([5, 7]),
    message_id: messageId,
  }),
  fc.record({
    type: fc.constant('user.flags'),
    op: fc.constantFrom('add', 'remove'),
    flag: fc.constantFrom('read', 'starred'),
    messages: fc.array(fc.record({ id: messageId, key, own: fc.boolean() }), { minLength: 1, maxLength: 4 }),
  }),
  fc.record({
    type: fc.constant('user.setTopic'),
    channel_id: channelId,
    topic,
    visibility_policy: fc.integer({ min: 0, max: 3 }),
  }),
  fc.record({
    type: fc.constant('user.sent'),
    key,
    message_id: messageId,
    read: fc.boolean(),
    topic: fc.option(fc.record({ channel_id: channelId, topic, new_topic: fc.boolean() }), { nil: undefined }),
  }),
  fc.record({
    type: fc.constant('user.subscriptionProperty'),
    channel_id: channelId,
    property: fc.constantFrom('is_muted', 'pin_to_top', 'desktop_notifications'),
    value: fc.oneof(fc.boolean(), fc.constant(null)),
  }),
  fc.record({
    type: fc.constant('user.addQueue'),
    queue_id: fc.constantFrom('q1', 'q2'),
    all_public_streams: fc.boolean(),
  }),
  fc.record({ type: fc.constant('user.removeQueue'), queue_id: fc.constantFrom('q1', 'q2') }),
);

test('replaying the journal of any command sequence gives the live actor its state', async (t) => {
  let records = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.tuple(command, fc.integer({ min: 0, max: 120_000 })), { maxLength: 40, size: 'medium' }),
      async (steps) => {
        const kit = new BehaviorTestKit(userBehavior, { key: 'zulip:5', now: Date.UTC(2026, 0, 1) });
        for (const [body, pause] of steps) {
          kit.now += pause;
          await kit.run(body);
        }
        records += kit.journal.length;
        deepStrictEqual(kit.replay(), kit.state);
      },
    ),
    { numRuns: 300 },
  );
  t.true(records > 300 * 3, `the commands changed state (${records} records)`);
});
