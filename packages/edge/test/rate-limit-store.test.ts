import test from 'ava';
import { MemoryRateLimitStore } from '../src/index.js';

/** A store on a clock the test moves. */
function storeAt(maxKeys: number) {
  const clock = { now: 1_000_000 };
  return { clock, store: new MemoryRateLimitStore(maxKeys, () => clock.now) };
}

test('a key gets its limit per window; a refusal is not counted; the next window starts afresh', async (t) => {
  const { clock, store } = storeAt(10);
  const seen = [];
  for (let i = 0; i < 4; i++) seen.push(await store.hit('k', 3, 1000));
  t.deepEqual(
    seen.map((h) => [h.allowed, h.remaining]),
    [
      [true, 2],
      [true, 1],
      [true, 0],
      [false, 0],
    ],
  );
  t.is(seen[3]!.resetMs, 1000);
  clock.now += 400;
  t.like(await store.hit('k', 3, 1000), { allowed: false, remaining: 0, resetMs: 600 });
  clock.now += 600;
  t.like(await store.hit('k', 3, 1000), { allowed: true, remaining: 2, resetMs: 1000 });
});

test('reset forgets a key at once', async (t) => {
  const { store } = storeAt(10);
  await store.hit('k', 1, 1000);
  t.false((await store.hit('k', 1, 1000)).allowed);
  await store.reset('k');
  t.true((await store.hit('k', 1, 1000)).allowed);
});

test('a flood of distinct keys never holds more than maxKeys', async (t) => {
  const { store } = storeAt(100);
  for (let i = 0; i < 10_000; i++) {
    await store.hit(`10.0.${i >> 8}.${i & 255}`, 5, 60_000);
    if (store.size > 100) return t.fail(`${store.size} keys after ${i + 1} hits`);
  }
  t.pass();
});

test('when full, expired windows go first, then the oldest', async (t) => {
  const { clock, store } = storeAt(10);
  for (let i = 0; i < 5; i++) await store.hit(`short${i}`, 5, 1000);
  for (let i = 0; i < 5; i++) await store.hit(`long${i}`, 1, 60_000);
  clock.now += 2000;
  await store.hit('new', 5, 1000);
  // Only the expired ones made room: every long window still refuses.
  t.is(store.size, 6);
  for (let i = 0; i < 5; i++) t.false((await store.hit(`long${i}`, 1, 60_000)).allowed, `long${i}`);

  for (let i = 0; i < 4; i++) await store.hit(`more${i}`, 1, 60_000);
  t.is(store.size, 10);
  await store.hit('overflow', 1, 60_000);
  // Nothing expired: the oldest windows went, down to 90% of the cap, before the new one came in.
  t.is(store.size, 10);
  t.true((await store.hit('long0', 1, 60_000)).allowed, 'the oldest window was evicted');
  t.false((await store.hit('more3', 1, 60_000)).allowed, 'a recent window was kept');
});
