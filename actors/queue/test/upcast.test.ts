import test from 'ava';
import { BehaviorTestKit } from '@chat/runtime/testkit';
import { queueBehavior } from '../src/index.js';

// Journal records as version 1 wrote them; the cover was once `through` by conversation, with no event types.
const V1 = JSON.parse(`[
  {"type": "registered", "spec": {"user_id": 2, "event_types": null, "narrow": [], "all_public_streams": false,
   "apply_markdown": true, "client_gravatar": false, "capabilities": {}}},
  {"type": "pushed", "events": [{"type": "typing", "op": "start", "id": 0}, {"type": "presence", "id": 1}]},
  {"type": "covered", "through": {"zulip:10": 5}, "dropped": [1]},
  {"type": "acknowledged", "through": 0}
]`);

test('records of version 1 still decode: a cover of the old shape means nothing and drops nothing', async (t) => {
  const kit = new BehaviorTestKit(queueBehavior({ heartbeatMs: 60_000, idleMs: 600_000, maxEvents: 100 }), {
    key: 'zulip:q1',
  }).given(V1, 1);
  t.is(kit.state.status, 'live');
  t.deepEqual(
    kit.state.events.map((e) => e.id),
    [1],
  );
  t.is(kit.state.cover, undefined);
  const poll = await kit.run({ type: 'queue.get', user_id: 2, last_event_id: 0, dont_block: true });
  t.deepEqual(
    (poll.reply as { events: Array<{ id: number }> }).events.map((e) => e.id),
    [1],
  );
});
