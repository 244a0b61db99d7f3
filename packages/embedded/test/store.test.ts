import test from 'ava';
import { FencedError } from '@chat/runtime';
import { put, storeContract } from '@chat/runtime/testkit';
import { LevelStore } from '../src/index.js';
import { TempDirs, text } from './helpers.js';

const dirs = new TempDirs();
test.after.always(() => dirs.removeAll());

storeContract(test, async (name, body) => {
  const store = await LevelStore.open(await dirs.make(`store-${name}`));
  try {
    await body(store);
  } finally {
    await store.close();
  }
});

test('claim fences older epochs, and the epoch survives a reopen', async (t) => {
  const dir = await dirs.make('store-fence');
  let store = await LevelStore.open(dir);
  t.is(await store.claim({ shard: 3, epoch: 2 }), 2);
  t.is(await store.claim({ shard: 3, epoch: 1 }), 2);
  await store.write([put('t', 'p', 'a', 'v2')], { fence: { shard: 3, epoch: 2 } });
  const err = await t.throwsAsync(store.write([put('t', 'p', 'a', 'v1')], { fence: { shard: 3, epoch: 1 } }), {
    instanceOf: FencedError,
  });
  t.is(err?.currentEpoch, 2);
  t.is(text((await store.get({ table: 't', partition: 'p', sort: 'a' }))!), 'v2');
  // Other shards are not affected; unfenced writes are not checked.
  await store.write([put('t', 'p', 'b', 'x')], { fence: { shard: 4, epoch: 0 } });
  await store.write([put('t', 'p', 'c', 'y')]);
  await store.close();

  store = await LevelStore.open(dir);
  await t.throwsAsync(store.write([put('t', 'p', 'a', 'v1')], { fence: { shard: 3, epoch: 1 } }), {
    instanceOf: FencedError,
  });
  t.is(await store.claim({ shard: 3, epoch: 1 }), 2);
  t.is(await store.claim({ shard: 3, epoch: 5 }), 5);
  await store.close();
});

test('racing claims leave the highest epoch on disk', async (t) => {
  const dir = await dirs.make('store-claims');
  let store = await LevelStore.open(dir);
  const results = await Promise.all([1, 7, 3, 6].map((epoch) => store.claim({ shard: 0, epoch })));
  t.is(Math.max(...results), 7);
  await store.close();
  store = await LevelStore.open(dir);
  t.is(await store.claim({ shard: 0, epoch: 0 }), 7);
  await store.close();
});

test('claim waits for writes accepted under the older epoch', async (t) => {
  const store = await LevelStore.open(await dirs.make('store-inflight'));
  await store.claim({ shard: 1, epoch: 1 });
  const write = store.write([put('t', 'p', 'a', 'old owner')], { fence: { shard: 1, epoch: 1 } });
  let written = false;
  void write.then(() => (written = true));
  await store.claim({ shard: 1, epoch: 2 });
  t.true(written);
  t.is(text((await store.get({ table: 't', partition: 'p', sort: 'a' }))!), 'old owner');
  await store.close();
});
