import anyTest, { type TestFn } from 'ava';
import { FencedError, type StoreWrite } from '@chat/runtime';
import { CassandraStore, type CassandraStoreOptions } from '../src/index.js';
import { bytes, cassandraOptions, Keyspaces, sleep, text } from './cassandra-support.js';

const test = anyTest as TestFn<{ keyspaces: Keyspaces; ns: string; stores: CassandraStore[] }>;

test.before((t) => {
  t.context.keyspaces = new Keyspaces();
  t.context.ns = t.context.keyspaces.name();
  t.context.stores = [];
});
test.after.always(async (t) => {
  await Promise.all(t.context.stores.map((s) => s.close()));
  await t.context.keyspaces?.dropAll();
});

/** Another process's view of the same namespace: its own session, its own epoch cache. */
async function open(
  t: { context: { ns: string; stores: CassandraStore[] } },
  extra: Partial<CassandraStoreOptions> = {},
) {
  const store = await CassandraStore.open({ ...cassandraOptions(t.context.ns), ...extra });
  t.context.stores.push(store);
  return store;
}

const put = (partition: string, sort: string, value: string): StoreWrite => ({
  op: 'put',
  table: 't',
  partition,
  sort,
  value: bytes(value),
});

test('claim fences older epochs, and the epoch survives a reopen', async (t) => {
  let store = await open(t);
  t.is(await store.claim({ shard: 3, epoch: 2 }), 2);
  t.is(await store.claim({ shard: 3, epoch: 1 }), 2);
  t.is(await store.claim({ shard: 3, epoch: 2 }), 2);
  await store.write([put('fence', 'a', 'v2')], { fence: { shard: 3, epoch: 2 } });
  const err = await t.throwsAsync(store.write([put('fence', 'a', 'v1')], { fence: { shard: 3, epoch: 1 } }), {
    instanceOf: FencedError,
  });
  t.is(err?.currentEpoch, 2);
  t.is(text((await store.get({ table: 't', partition: 'fence', sort: 'a' }))!), 'v2');
  // Other shards are not affected; unfenced writes are not checked.
  await store.write([put('fence', 'b', 'x')], { fence: { shard: 4, epoch: 0 } });
  await store.write([put('fence', 'c', 'y')]);

  store = await open(t);
  await t.throwsAsync(store.write([put('fence', 'a', 'v1')], { fence: { shard: 3, epoch: 1 } }), {
    instanceOf: FencedError,
  });
  t.is(await store.claim({ shard: 3, epoch: 1 }), 2);
  t.is(await store.claim({ shard: 3, epoch: 5 }), 5);
});

test('racing claims from several processes leave the highest epoch', async (t) => {
  const stores = await Promise.all([open(t), open(t), open(t)]);
  const epochs = [1, 7, 3, 6, 2, 5];
  const results = await Promise.all(epochs.map((epoch, i) => stores[i % 3]!.claim({ shard: 0, epoch })));
  t.is(Math.max(...results), 7);
  // Each claim answers an epoch at least its own: the stored one only grows.
  results.forEach((r, i) => t.true(r >= epochs[i]!));
  const fresh = await open(t);
  t.is(await fresh.claim({ shard: 0, epoch: 0 }), 7);
});

test('claim waits for writes accepted under the older epoch', async (t) => {
  const store = await open(t);
  await store.claim({ shard: 1, epoch: 1 });
  const write = store.write([put('inflight', 'a', 'old owner')], { fence: { shard: 1, epoch: 1 } });
  let written = false;
  void write.then(() => (written = true));
  await store.claim({ shard: 1, epoch: 2 });
  t.true(written);
  t.is(text((await store.get({ table: 't', partition: 'inflight', sort: 'a' }))!), 'old owner');
});

test('a stale owner is refused once another process claimed, within the refresh window', async (t) => {
  const refreshMs = 300;
  const oldOwner = await open(t, { epochRefreshMs: refreshMs });
  const newOwner = await open(t, { epochRefreshMs: refreshMs });
  const stale = { shard: 9, epoch: 1 };
  t.is(await oldOwner.claim(stale), 1);
  await oldOwner.write([put('stale', 'row', 'old owner at 20')], { fence: stale, position: 20 });

  t.is(await newOwner.claim({ shard: 9, epoch: 2 }), 2);
  // The new owner recovered from the journal and writes at positions at least as high.
  await newOwner.write([put('stale', 'row', 'new owner at 21')], { fence: { shard: 9, epoch: 2 }, position: 21 });
  // Inside the window the old owner may still pass the check, but its late, lower position loses.
  await oldOwner.write([put('stale', 'row', 'old owner at 20 (late)')], { fence: stale, position: 20 }).catch((err) => {
    t.true(err instanceof FencedError);
  });
  t.is(text((await newOwner.get({ table: 't', partition: 'stale', sort: 'row' }))!), 'new owner at 21');

  // Past the window the old owner's view is refreshed before its next write.
  await sleep(refreshMs + 50);
  const err = await t.throwsAsync(oldOwner.write([put('stale', 'other', 'late')], { fence: stale, position: 19 }), {
    instanceOf: FencedError,
  });
  t.is(err?.currentEpoch, 2);
  t.is(await newOwner.get({ table: 't', partition: 'stale', sort: 'other' }), undefined);
  // The new owner keeps writing.
  await newOwner.write([put('stale', 'other', 'fine')], { fence: { shard: 9, epoch: 2 }, position: 22 });
  t.is(text((await oldOwner.get({ table: 't', partition: 'stale', sort: 'other' }))!), 'fine');
});
