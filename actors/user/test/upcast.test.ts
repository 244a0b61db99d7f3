import test from 'ava';
import { BehaviorTestKit } from '@chat/runtime/testkit';
import { userBehavior } from '../src/index.js';

// Journal records as version 1 wrote them.
const V1 = JSON.parse(`[
  {"type": "subscribed", "channelKey": "zulip:10", "channelId": 10, "color": "#76ce90", "lastMessageId": 40},
  {"type": "flagsChanged", "op": "add", "flag": "read", "targets": [{"id": 44, "key": "zulip:10", "own": false}]},
  {"type": "flagsChanged", "op": "add", "flag": "starred", "targets": [{"id": 44, "key": "zulip:10", "own": false}]},
  {"type": "topicPolicySet", "channelId": 10, "topic": "Lunch", "policy": 3, "at": 1735689600},
  {"type": "queueAdded", "queueId": "q1"}
]`);

test('records of version 1 still decode, a queue added before all-public queues included', async (t) => {
  const kit = new BehaviorTestKit(userBehavior, { key: 'zulip:2' }).given(V1, 1);
  t.like(kit.state.subscriptions[10], { color: '#76ce90' });
  t.deepEqual(kit.state.read['zulip:10'], [
    [0, 40],
    [44, 44],
  ]);
  t.deepEqual(kit.state.starred, [44]);
  t.like(kit.state.topics['10/lunch'], { topic_name: 'Lunch', visibility_policy: 3, last_updated: 1735689600 });
  t.deepEqual(kit.state.queues, ['q1']);
  t.deepEqual(kit.state.publicQueues ?? [], []);
  const removed = await kit.run({ type: 'user.removeQueue', queue_id: 'q1' });
  t.deepEqual(removed.events, [{ type: 'queueRemoved', queueId: 'q1' }]);
});
