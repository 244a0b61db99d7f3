import test from 'ava';
import { atTurnEnd, Turns } from '../src/turns.js';

// A slice's answers are sent in the microtasks after it, batched for the
// turn's end; they must leave before the next slice, not behind it.
test('what a slice batches for the turn end goes before the next slice', async (t) => {
  const log: string[] = [];
  const turns = new Turns(2);
  const sliced = (from: number) => {
    log.push(`slice ${from}`);
    void Promise.resolve().then(() => atTurnEnd(() => log.push(`sent ${from}`)));
  };
  turns.add('queue.1', 6, sliced);
  await turns.whenEmpty();
  await new Promise((resolve) => setImmediate(resolve));
  t.deepEqual(log, ['slice 0', 'sent 0', 'slice 2', 'sent 2', 'slice 4', 'sent 4']);
});

test('at the turn end, with nothing lined, runs on the next check in the order asked', async (t) => {
  const log: number[] = [];
  atTurnEnd(() => log.push(1));
  atTurnEnd(() => log.push(2));
  t.deepEqual(log, []);
  await new Promise((resolve) => setImmediate(resolve));
  t.deepEqual(log, [1, 2]);
});

test('one that throws at the turn end stops neither the others nor the next slice', async (t) => {
  const log: string[] = [];
  // The error must reach the process as uncaught; ava's own listener would fail the file, so it is ours for this test.
  const ava = process.listeners('uncaughtException');
  process.removeAllListeners('uncaughtException');
  const thrown = new Promise<unknown>((resolve) => process.once('uncaughtException', resolve));
  t.teardown(() => ava.forEach((listener) => process.on('uncaughtException', listener)));
  const turns = new Turns(1);
  turns.add('queue.2', 2, (from) => {
    log.push(`slice ${from}`);
    if (from === 0)
      atTurnEnd(() => {
        throw new Error('flush failed');
      });
    atTurnEnd(() => log.push(`sent ${from}`));
  });
  await turns.whenEmpty();
  t.is(((await thrown) as Error).message, 'flush failed');
  t.deepEqual(log, ['slice 0', 'sent 0', 'slice 1']);
});
