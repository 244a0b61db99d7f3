import type { QueueSpec } from '@chat/protocol';
import { BehaviorTestKit } from '@chat/runtime/testkit';
import { queueBehavior, type QueueOptions } from '../src/index.js';

export const OPTIONS: QueueOptions = { heartbeatMs: 60_000, idleMs: 600_000, maxEvents: 6 };

/** A queue of user 2 for every event, with these changes. */
export const spec = (changes: Partial<QueueSpec> = {}): QueueSpec => ({
  user_id: 2,
  event_types: null,
  narrow: [],
  all_public_streams: false,
  apply_markdown: true,
  client_gravatar: false,
  capabilities: {},
  ...changes,
});

/** Queue `zulip:q1` in a behavior test kit, registered with `spec(changes)`. */
export async function queue(changes: Partial<QueueSpec> = {}, options = OPTIONS) {
  const kit = new BehaviorTestKit(queueBehavior(options), { key: 'zulip:q1' });
  await kit.run({ type: 'queue.register', spec: spec(changes) });
  return kit;
}
