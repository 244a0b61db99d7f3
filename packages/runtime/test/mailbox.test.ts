import test from 'ava';
import { Mailbox } from '../src/mailbox.js';

test('items finished at once are all handled before offer returns, in order', (t) => {
  const seen: number[] = [];
  const box = new Mailbox<number>(10, (n) => {
    seen.push(n);
    // Offered while one is handled: it waits its turn, and is handled in the same drain.
    if (n === 1) box.offer(3);
  });
  box.offer(1);
  t.deepEqual(seen, [1, 3]);
  t.false(box.busy);
  box.offer(2);
  t.deepEqual(seen, [1, 3, 2]);
});

test('an item the consumer waits on holds the next back until it settles', async (t) => {
  const seen: string[] = [];
  let finish!: () => void;
  const box = new Mailbox<string>(10, (item) => {
    seen.push(`start ${item}`);
    if (item === 'slow')
      return new Promise<void>((resolve) => (finish = resolve)).then(() => void seen.push('end slow'));
  });
  box.offer('slow');
  box.offer('quick');
  t.deepEqual(seen, ['start slow']);
  t.true(box.busy);
  t.is(box.size, 1);
  const idle = box.whenIdle();
  finish();
  await idle;
  t.deepEqual(seen, ['start slow', 'end slow', 'start quick']);
  t.false(box.busy);
});

test('a full mailbox refuses, and takes again once drained', async (t) => {
  let finish!: () => void;
  const box = new Mailbox<number>(2, () => new Promise<void>((resolve) => (finish = resolve)));
  t.true(box.offer(1)); // taken at once: the mailbox holds none
  t.true(box.offer(2));
  t.true(box.offer(3));
  t.false(box.offer(4));
  finish();
  await new Promise((resolve) => setImmediate(resolve));
  t.true(box.offer(5));
});
