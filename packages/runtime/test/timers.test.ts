import test from 'ava';
import { ActorTimers } from '../src/timers.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function timers() {
  const fired: Array<{ name: string; at: number }> = [];
  const start = Date.now();
  return { fired, start, timers: new ActorTimers((name) => fired.push({ name, at: Date.now() - start })) };
}

test('a timer set again for later fires once, at the later time', async (t) => {
  const { fired, timers: clock } = timers();
  clock.set('idle', 20);
  await sleep(10);
  clock.set('idle', 60);
  await sleep(40);
  t.deepEqual(fired, [], 'not at its first time');
  t.true(clock.has('idle'));
  await sleep(60);
  t.is(fired.length, 1);
  t.true(fired[0]!.at >= 68, `fired at ${fired[0]!.at} ms`);
  t.false(clock.has('idle'));
});

test('a timer set again for sooner fires at the sooner time', async (t) => {
  const { fired, timers: clock } = timers();
  clock.set('beat', 1_000);
  clock.set('beat', 10);
  await sleep(60);
  t.deepEqual(
    fired.map((f) => f.name),
    ['beat'],
  );
  clock.clear();
});

test('a cancelled timer does not fire, and set again after it fires at the new time only', async (t) => {
  const { fired, timers: clock } = timers();
  clock.set('beat', 10);
  clock.cancel('beat');
  t.false(clock.has('beat'));
  t.is(clock.count, 0);
  await sleep(40);
  t.deepEqual(fired, []);
  clock.set('beat', 10);
  clock.cancel('beat');
  clock.set('beat', 50);
  await sleep(30);
  t.deepEqual(fired, [], 'not at the time of the cancelled one');
  await sleep(60);
  t.deepEqual(
    fired.map((f) => f.name),
    ['beat'],
  );
});

test('clear stops every timer', async (t) => {
  const { fired, timers: clock } = timers();
  clock.set('a', 10);
  clock.set('b', 20);
  t.is(clock.count, 2);
  clock.clear();
  await sleep(50);
  t.deepEqual(fired, []);
  t.false(clock.has('a'));
});
