import anyTest, { type TestFn } from 'ava';
import { FencedError, type ScanOptions, type StoreWrite } from '@chat/runtime';
import { LevelStore } from '../src/index.js';
import { bytes, collect, TempDirs, text } from './helpers.js';

const test = anyTest as TestFn<{ dirs: TempDirs }>;

test.before((t) => {
  t.context.dirs = new TempDirs();
});
test.after.always(async (t) => {
  await t.context.dirs.removeAll();
});

const put = (table: string, partition: string, sort: string, value: string): StoreWrite => ({
  op: 'put',
  table,
  partition,
  sort,
  value: bytes(value),
});

test('get, put and delete', async (t) => {
  const store = await LevelStore.open(await t.context.dirs.make('store-basic'));
  const key = { table: 'users', partition: '1', sort: '42' };
  t.is(await store.get(key), undefined);
  await store.write([put('users', '1', '42', 'alice')], { sync: true });
  t.is(text((await store.get(key))!), 'alice');
  await store.write([{ op: 'del', ...key }, put('users', '1', '43', 'bob')]);
  t.is(await store.get(key), undefined);
  t.is(text((await store.get({ ...key, sort: '43' }))!), 'bob');
  await store.close();
});

test('scan ranges stay inside one partition of one table', async (t) => {
  const store = await LevelStore.open(await t.context.dirs.make('store-scan'));
  await store.write([
    ...['a', 'b', 'c', 'd', 'e'].map((s) => put('msgs', 'p', s, `p:${s}`)),
    put('msgs', 'p', '', 'p:empty-sort'),
    // Neighbours that a sloppy key scheme would mix in.
    put('msgs', 'pa', 'a', 'pa:a'),
    put('msgs', 'o', 'z', 'o:z'),
    put('msgsx', 'p', 'a', 'msgsx:a'),
    put('msg', 'sp', 'a', 'msg:sp:a'),
    put('msgs', 'p\u0001', 'a', 'p1:a'),
  ]);
  const sorts = async (opts?: ScanOptions) => (await collect(store.scan('msgs', 'p', opts))).map((r) => r.sort);

  t.deepEqual(await sorts(), ['', 'a', 'b', 'c', 'd', 'e']);
  t.deepEqual(await sorts({ gt: 'b' }), ['c', 'd', 'e']);
  t.deepEqual(await sorts({ gte: 'b' }), ['b', 'c', 'd', 'e']);
  t.deepEqual(await sorts({ lt: 'c' }), ['', 'a', 'b']);
  t.deepEqual(await sorts({ lte: 'c' }), ['', 'a', 'b', 'c']);
  t.deepEqual(await sorts({ gt: 'a', lte: 'd' }), ['b', 'c', 'd']);
  t.deepEqual(await sorts({ reverse: true }), ['e', 'd', 'c', 'b', 'a', '']);
  t.deepEqual(await sorts({ reverse: true, limit: 2 }), ['e', 'd']);
  t.deepEqual(await sorts({ lt: 'd', reverse: true, limit: 2 }), ['c', 'b']);
  t.deepEqual(await sorts({ gte: 'b', limit: 2 }), ['b', 'c']);
  t.deepEqual(await sorts({ gt: 'e' }), []);
  const rows = await collect(store.scan('msgs', 'p', { gte: 'a', lte: 'a' }));
  t.deepEqual(
    rows.map((r) => text(r.value)),
    ['p:a'],
  );
  t.deepEqual(await collect(store.scan('msgs', 'missing')), []);
  await store.close();
});

test('names with NUL are refused', async (t) => {
  const store = await LevelStore.open(await t.context.dirs.make('store-nul'));
  await t.throwsAsync(store.write([put('t', 'a\u0000b', 's', 'v')]), { message: /NUL/ });
  await t.throwsAsync(store.write([put('', 'p', 's', 'v')]), { message: /empty/ });
  await store.close();
});

test('claim fences older epochs, and the epoch survives a reopen', async (t) => {
  const dir = await t.context.dirs.make('store-fence');
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
  const dir = await t.context.dirs.make('store-claims');
  let store = await LevelStore.open(dir);
  const results = await Promise.all([1, 7, 3, 6].map((epoch) => store.claim({ shard: 0, epoch })));
  t.is(Math.max(...results), 7);
  await store.close();
  store = await LevelStore.open(dir);
  t.is(await store.claim({ shard: 0, epoch: 0 }), 7);
  await store.close();
});

test('claim waits for writes accepted under the older epoch', async (t) => {
  const store = await LevelStore.open(await t.context.dirs.make('store-inflight'));
  await store.claim({ shard: 1, epoch: 1 });
  const write = store.write([put('t', 'p', 'a', 'old owner')], { fence: { shard: 1, epoch: 1 } });
  let written = false;
  void write.then(() => (written = true));
  await store.claim({ shard: 1, epoch: 2 });
  t.true(written);
  t.is(text((await store.get({ table: 't', partition: 'p', sort: 'a' }))!), 'old owner');
  await store.close();
});
