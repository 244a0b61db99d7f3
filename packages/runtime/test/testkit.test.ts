import test from 'ava';
import { ChatError } from '@chat/protocol';
import { checkingValues, checkValues, type ActorBehavior } from '../src/index.js';
import { BehaviorTestKit, runCommand } from '../src/testkit/index.js';
import { counterBehavior, type CounterEvent, type CounterState } from './counter.js';

test('runCommand applies the given events, then decides and applies the command', async (t) => {
  const given: CounterEvent[] = [{ type: 'added', value: 4 }];
  const result = await runCommand(counterBehavior(), given, { type: 'add', value: 7 });
  t.deepEqual(result.events, [{ type: 'added', value: 7 }]);
  t.deepEqual(result.reply, { count: 2 });
  t.deepEqual(result.state.values, [4, 7]);
  t.is(result.error, undefined);
});

test('a refusal is the ChatError, and changes nothing', async (t) => {
  const result = await runCommand(counterBehavior(), [{ type: 'added', value: 1 }], { type: 'fail' });
  t.true(result.error instanceof ChatError);
  t.is(result.error?.code, 'BAD_REQUEST');
  t.deepEqual(result.events, []);
  t.deepEqual(result.state.values, [1]);
});

test('a reply is a copy as it goes on the wire: later changes do not show in it', async (t) => {
  const kit = new BehaviorTestKit(counterBehavior());
  const read = await kit.run({ type: 'get' });
  await kit.run({ type: 'add', value: 1 });
  t.deepEqual((read.reply as CounterState).values, []);
});

test('a repeated idempotency key gets the first reply without asking the behavior again', async (t) => {
  const kit = new BehaviorTestKit(counterBehavior());
  const first = await kit.run({ type: 'add', value: 1 }, { idempotencyKey: 'k' });
  const again = await kit.run({ type: 'add', value: 1 }, { idempotencyKey: 'k' });
  t.false(first.repeated);
  t.true(again.repeated);
  t.deepEqual(again.reply, first.reply);
  t.deepEqual(again.events, []);
  t.deepEqual(kit.state.values, [1]);
});

test('held replies are released by a later message', async (t) => {
  const kit = new BehaviorTestKit(counterBehavior());
  const wait = await kit.run({ type: 'wait', after: 0, ms: 1000 });
  t.is(wait.hold, 'poll');
  t.is(wait.reply, undefined);
  t.true(kit.held.has('poll'));
  const add = await kit.run({ type: 'add', value: 5 });
  t.deepEqual(add.released, [{ name: 'poll', reply: [5] }]);
  t.false(kit.held.has('poll'));
});

test('timers fire when the test says: by name, or by moving the clock', async (t) => {
  const kit = new BehaviorTestKit(counterBehavior(), { now: 1_000 });
  await kit.run({ type: 'arm', name: 'late', ms: 500 });
  await kit.run({ type: 'arm', name: 'early', ms: 100 });
  t.deepEqual(await kit.advance(99), []);
  const fired = await kit.advance(500);
  t.deepEqual(
    fired.map((r) => r.events),
    [[{ type: 'fired', name: 'early' }], [{ type: 'fired', name: 'late' }]],
  );
  await t.throwsAsync(() => kit.fire('early'), { message: /not armed/ });
  await kit.run({ type: 'arm', name: 'again', ms: 60_000 });
  t.deepEqual((await kit.fire('again')).state.fired, ['early', 'late', 'again']);
});

test('soft events change the state but not the journal', async (t) => {
  const kit = new BehaviorTestKit(counterBehavior());
  await kit.run({ type: 'add', value: 1 });
  const soft = await kit.run({ type: 'addSoftly', value: 2 });
  t.deepEqual(soft.soft, [{ type: 'added', value: 2 }]);
  t.deepEqual(kit.state.values, [1, 2]);
  t.deepEqual(kit.replay().values, [1]);
});

test('events of an older version go through upcast', async (t) => {
  type Old = { type: 'plus'; n: number };
  const behavior: ActorBehavior<CounterState, CounterEvent> = {
    ...counterBehavior(),
    eventVersion: 2,
    upcast: (event, version) => (version === 1 ? { type: 'added', value: (event as Old).n } : (event as CounterEvent)),
  };
  const kit = new BehaviorTestKit(behavior).given([{ type: 'plus', n: 3 }], 1).given([{ type: 'added', value: 4 }]);
  t.deepEqual(kit.state.values, [3, 4]);
  t.deepEqual(kit.replay().values, [3, 4]);
  t.throws(() => new BehaviorTestKit(counterBehavior()).given([{ type: 'plus', n: 3 }], 0), {
    message: /no upcast/,
  });
});

test('in the check mode a behavior receives its message frozen, as the embedded transport hands it over', async (t) => {
  type Kept = { lists: number[][] };
  type Event = { type: 'kept'; list: number[] };
  // Sorts the list it received in place: what the rule forbids (the sender and other receivers share it).
  const keeper: ActorBehavior<Kept, Event> = {
    type: 'keeper' as never,
    eventVersion: 1,
    initial: () => ({ lists: [] }),
    handle: (_ctx, body) => {
      const { list } = body as unknown as { list: number[] };
      return { events: [{ type: 'kept', list: list.sort() }] };
    },
    apply: (state, event) => {
      // Changing what it keeps in place is its own business: the cell applies a copy.
      state.lists.forEach((l) => l.push(0));
      state.lists.push(event.list);
    },
  };
  const kept = async (check: boolean) => {
    const was = checkingValues();
    checkValues(check);
    try {
      const kit = new BehaviorTestKit(keeper);
      await kit.run({ type: 'keep', list: [1, 0] } as never);
      return await kit.run({ type: 'keep', list: [2, 1] } as never);
    } finally {
      checkValues(was);
    }
  };
  await t.throwsAsync(kept(true), { instanceOf: TypeError });
  await t.notThrowsAsync(kept(false), 'production does not check');
});
