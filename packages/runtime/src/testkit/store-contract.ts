import type { TestFn } from 'ava';
import type { ScanOptions, StateStore, StoreWrite } from '../ports/index.js';

/**
 * What every `StateStore` adapter must do alike, as ava tests: the embedded
 * store and the Cassandra store each run these (beside tests of what only
 * they do: fences on disk, positions as write timestamps, paging). `use`
 * lends a store for one test; tests write to tables of their own, so one
 * store may serve them all.
 */
export function storeContract(
  test: TestFn<any>,
  use: (name: string, body: (store: StateStore) => Promise<void>) => Promise<void>,
): void {
  test('store contract: get, put and delete', (t) =>
    use('basic', async (store) => {
      const key = { table: 'users', partition: '1', sort: '42' };
      t.is(await store.get(key), undefined);
      await store.write([put('users', '1', '42', 'alice')], { sync: true });
      t.is(text((await store.get(key))!), 'alice');
      await store.write([{ op: 'del', ...key }, put('users', '1', '43', 'bob')]);
      t.is(await store.get(key), undefined);
      t.is(text((await store.get({ ...key, sort: '43' }))!), 'bob');
      // Writes of one row one after the other: the last one wins.
      await store.write([put('users', '1', '43', 'carol')]);
      await store.write([put('users', '1', '43', 'bert')]);
      t.is(text((await store.get({ ...key, sort: '43' }))!), 'bert');
      await store.write([put('users', '1', 'empty', '')]);
      t.is((await store.get({ ...key, sort: 'empty' }))?.length, 0, 'an empty value is a row, not a missing one');
    }));

  test('store contract: getMany answers each key as get does, in order', (t) =>
    use('many', async (store) => {
      if (!store.getMany) {
        t.pass('this store reads one key at a time');
        return;
      }
      await store.write([put('many', '1', 'a', 'x'), put('many', '1', 'c', ''), put('many', '2', 'a', 'y')]);
      const keys = ['a', 'b', 'c'].map((sort) => ({ table: 'many', partition: '1', sort }));
      const rows = await store.getMany([...keys, { table: 'many', partition: '2', sort: 'a' }]);
      t.deepEqual(
        rows.map((r) => (r === undefined ? undefined : text(r))),
        ['x', undefined, '', 'y'],
      );
      t.deepEqual(await store.getMany([]), []);
    }));

  test('store contract: scan ranges stay inside one partition of one table', (t) =>
    use('scan', async (store) => {
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
      t.deepEqual(await sorts({ limit: 0 }), []);
      const rows = await collect(store.scan('msgs', 'p', { gte: 'a', lte: 'a' }));
      t.deepEqual(
        rows.map((r) => text(r.value)),
        ['p:a'],
      );
      t.deepEqual(await collect(store.scan('msgs', 'missing')), []);
    }));

  test('store contract: sort keys order by code point', (t) =>
    use('order', async (store) => {
      const keys = ['B', 'a', 'aa', 'a b', 'é', 'z', '\u00ff', '\u0100', '10', '9'];
      await store.write(keys.map((k) => put('order', 'p', k, k)));
      const expected = [...keys].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
      t.deepEqual(
        (await collect(store.scan('order', 'p'))).map((r) => r.sort),
        expected,
      );
    }));

  test('store contract: names with NUL are refused', (t) =>
    use('nul', async (store) => {
      await t.throwsAsync(store.write([put('t', 'a\u0000b', 's', 'v')]), { message: /NUL/ });
      await t.throwsAsync(store.write([put('', 'p', 's', 'v')]), { message: /empty/ });
      await t.throwsAsync(collect(store.scan('t\u0000', 'p')), { message: /NUL/ });
    }));

  test('store contract: within one write the last write of a row counts', (t) =>
    use('dup', async (store) => {
      const key = { table: 'dup', partition: 'p', sort: 'r' };
      // One position for both: last-write-wins cells alone would let the delete win.
      await store.write([del('dup', 'p', 'r'), put('dup', 'p', 'r', 'back')], { position: 3 });
      t.is(text((await store.get(key))!), 'back');
      await store.write([put('dup', 'p', 'r', 'zzz'), put('dup', 'p', 'r', 'aaa')], { position: 4 });
      t.is(text((await store.get(key))!), 'aaa');
      await store.write([put('dup', 'p', 'r', 'again'), del('dup', 'p', 'r')], { position: 5 });
      t.is(await store.get(key), undefined);
    }));
}

export const put = (table: string, partition: string, sort: string, value: string): StoreWrite => ({
  op: 'put',
  table,
  partition,
  sort,
  value: new TextEncoder().encode(value),
});
export const del = (table: string, partition: string, sort: string): StoreWrite => ({
  op: 'del',
  table,
  partition,
  sort,
});
const text = (data: Uint8Array) => new TextDecoder().decode(data);

async function collect<T>(source: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of source) out.push(item);
  return out;
}
