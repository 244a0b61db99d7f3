import anyTest, { type TestFn } from 'ava';
import { isChatError, type ActorAddress } from '@chat/protocol';
import { counterBehavior, Probe, type CounterState } from './counter.js';
import { TestNode } from './node.js';

/**
 * An actor whose activation fails (here: the store refuses a key holding
 * NUL, as a hostile queue id once made it) answers an internal error and
 * leaves no cell behind without state: the sweep drops it instead of asking
 * the behavior about `undefined` state, which ended the whole process.
 */
const test = anyTest as TestFn<{ node: TestNode }>;

test.beforeEach(async (t) => {
  t.context.node = await TestNode.start([counterBehavior(new Probe())], { passivateAfterMs: 60_000 });
});
test.afterEach.always(async (t) => {
  await t.context.node.stop().catch(() => undefined);
  await t.context.node.destroy();
});

const actor = (key: string): ActorAddress => ({ type: 'user', key });

test('a cell that failed to activate is dropped by the sweep, and the host goes on', async (t) => {
  const { node } = t.context;
  const failed = await node.client.ask(actor('bad\u0000key'), { type: 'get' }).catch((err: unknown) => err);
  t.true(isChatError(failed) && failed.code === 'INTERNAL_SERVER_ERROR', String(failed));
  await node.client.ask(actor('good'), { type: 'add', value: 1 });
  const live = node.host.stats.live;
  await node.host.whenIdle();
  // Before its passivation time: only the broken cell goes.
  await t.notThrowsAsync(node.host.sweep());
  t.is(node.host.stats.live, live - 1);
  await t.notThrowsAsync(node.host.sweep(Date.now() + 120_000));
  const state = await node.client.ask<CounterState>(actor('good'), { type: 'get' });
  t.deepEqual(state.values, [1]);
});
