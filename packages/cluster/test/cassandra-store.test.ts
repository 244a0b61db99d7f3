import anyTest, { type TestFn } from 'ava';
import { del, put, storeContract } from '@chat/runtime/testkit';
import { CassandraStore } from '../src/index.js';
import { cassandraOptions, collect, Keyspaces, text } from './cassandra-support.js';

const test = anyTest as TestFn<{ keyspaces: Keyspaces; store: CassandraStore }>;

let shared: CassandraStore;
test.before(async (t) => {
  t.context.keyspaces = new Keyspaces();
  shared = t.context.store = await CassandraStore.open({
    ...cassandraOptions(t.context.keyspaces.name()),
    pageSize: 500,
  });
});
test.after.always(async (t) => {
  await t.context.store?.close();
  await t.context.keyspaces?.dropAll();
});

storeContract(test, (_name, body) => body(shared));

test('a later position wins whatever the arrival order, deletions included', async (t) => {
  const { store } = t.context;
  const key = { table: 'pos', partition: 'p', sort: 'row' };
  await store.write([put('pos', 'p', 'row', 'v2')], { position: 10 });
  await store.write([put('pos', 'p', 'row', 'v1')], { position: 5 });
  t.is(text((await store.get(key))!), 'v2');
  await store.write([del('pos', 'p', 'row')], { position: 4 });
  t.is(text((await store.get(key))!), 'v2');
  await store.write([del('pos', 'p', 'row')], { position: 11 });
  t.is(await store.get(key), undefined);
  // Position -1 ("nothing yet") is a valid stamp, below every later position.
  await store.write([put('pos', 'p', 'first', 'a')], { position: -1 });
  await store.write([put('pos', 'p', 'first', 'b')], { position: 0 });
  t.is(text((await store.get({ ...key, sort: 'first' }))!), 'b');
  await t.throwsAsync(store.write([put('pos', 'p', 'x', 'y')], { position: 1.5 }), { message: /position/ });
});

test('writes without a position never shadow positioned ones', async (t) => {
  const { store } = t.context;
  const key = { table: 'pos', partition: 'mixed', sort: 'row' };
  await store.write([put('pos', 'mixed', 'row', 'tool')]);
  await store.write([put('pos', 'mixed', 'row', 'runtime')], { position: 0 });
  t.is(text((await store.get(key))!), 'runtime');
  await store.write([put('pos', 'mixed', 'row', 'tool again')]);
  await store.write([del('pos', 'mixed', 'row')]);
  t.is(text((await store.get(key))!), 'runtime');
});

test('writes beyond one batch limit span several batches', async (t) => {
  t.timeout(120_000);
  const { store } = t.context;
  const kib = 'x'.repeat(1024);
  // 300 partitions of 1 KiB: six times Cassandra's 50 KiB limit for a batch across partitions.
  const spread = Array.from({ length: 300 }, (_, i) => put('spread', `p${i}`, 's', `${i}:${kib}`));
  // One partition of 4 MiB: a single-partition batch has no such limit.
  const big = Array.from({ length: 64 }, (_, i) => put('big', 'one', String(i).padStart(3, '0'), kib.repeat(64)));
  await store.write([...spread, ...big, put('spread', 'last', 's', 'done')], { position: 7, sync: true });
  for (const i of [0, 150, 299]) {
    t.is(text((await store.get({ table: 'spread', partition: `p${i}`, sort: 's' }))!), `${i}:${kib}`);
  }
  t.is((await collect(store.scan('big', 'one'))).length, 64);
  t.is(text((await store.get({ table: 'spread', partition: 'last', sort: 's' }))!), 'done');
});

test('scans page through more than 5000 rows', async (t) => {
  t.timeout(300_000);
  const { store } = t.context;
  const count = 6200;
  const sortOf = (i: number) => String(i).padStart(5, '0');
  const started = Date.now();
  for (let i = 0; i < count; i += 10) {
    const batch = Array.from({ length: 10 }, (_, j) => put('many', 'p', sortOf(i + j), `v${i + j}`));
    await store.write(batch, { position: i });
  }
  const seconds = (Date.now() - started) / 1000;
  t.log(`wrote ${count} rows in batches of 10 in ${seconds.toFixed(1)} s: ${Math.round(count / seconds)} rows/s`);

  const all = await collect(store.scan('many', 'p'));
  t.is(all.length, count);
  t.deepEqual(
    all.map((r) => r.sort),
    Array.from({ length: count }, (_, i) => sortOf(i)),
  );
  t.is(text(all[5123]!.value), 'v5123');
  const tail = await collect(store.scan('many', 'p', { reverse: true, gt: sortOf(100), limit: 5500 }));
  t.is(tail.length, 5500);
  t.is(tail[0]!.sort, sortOf(count - 1));
  t.is(tail[5499]!.sort, sortOf(count - 5500));
  // An early stop reads no further pages (and must not hang or leak).
  let seen = 0;
  for await (const _ of store.scan('many', 'p')) if (++seen === 3) break;
  t.is(seen, 3);

  const samples = 200;
  const getStarted = process.hrtime.bigint();
  for (let i = 0; i < samples; i++) await store.get({ table: 'many', partition: 'p', sort: sortOf((i * 31) % count) });
  const micros = Number(process.hrtime.bigint() - getStarted) / 1000 / samples;
  t.log(`get: ${(micros / 1000).toFixed(2)} ms on average over ${samples} sequential reads`);
});
