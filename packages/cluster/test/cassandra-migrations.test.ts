import anyTest, { type TestFn } from 'ava';
import { readdir } from 'node:fs/promises';
import { silentLogger, type Logger } from '@chat/runtime';
import { CassandraFileStore, CassandraStore, checkKeyspace } from '../src/index.js';
import { bytes, cassandraOptions, Keyspaces, text } from './cassandra-support.js';

const test = anyTest as TestFn<{ keyspaces: Keyspaces }>;

test.before((t) => {
  t.context.keyspaces = new Keyspaces();
});
test.after.always(async (t) => {
  await t.context.keyspaces?.dropAll();
});

/** The versions the CQL folder holds, read independently of the code under test. */
async function cqlVersions(): Promise<number[]> {
  const files = await readdir(new URL('../../cql/', import.meta.url));
  return files.filter((f) => /^\d{3}-.*\.cql$/.test(f)).map((f) => Number(f.slice(0, 3)));
}

/** Counts the migrations it is told were applied, whichever session applied them. */
function countingLogger(): Logger & { applied: number[] } {
  const applied: number[] = [];
  const log: Logger & { applied: number[] } = {
    ...silentLogger,
    applied,
    info(obj: object, msg?: string) {
      if (msg === 'cassandra migration applied') applied.push((obj as { version: number }).version);
    },
    child: () => log,
  };
  return log;
}

async function recorded(keyspaces: Keyspaces, ns: string) {
  const rows = await keyspaces.query(`SELECT version, name, applied_at FROM ${ns}.schema_migrations`);
  return rows.map((r) => ({ version: r['version'] as number, applied: r['applied_at'] instanceof Date }));
}

test('opening twice applies each migration once', async (t) => {
  t.timeout(180_000);
  const { keyspaces } = t.context;
  const ns = keyspaces.name();
  const first = await CassandraStore.open(cassandraOptions(ns));
  await first.write([{ op: 'put', table: 't', partition: 'p', sort: 's', value: bytes('kept') }]);
  await first.close();
  const before = await keyspaces.query(`SELECT version, applied_at FROM ${ns}.schema_migrations`);

  const second = await CassandraStore.open(cassandraOptions(ns));
  t.is(text((await second.get({ table: 't', partition: 'p', sort: 's' }))!), 'kept');
  await second.close();
  const files = await CassandraFileStore.open(cassandraOptions(ns));
  await files.close();

  const versions = await cqlVersions();
  t.true(versions.length >= 2);
  t.deepEqual(
    (await recorded(keyspaces, ns)).sort((a, b) => a.version - b.version),
    versions.sort((a, b) => a - b).map((version) => ({ version, applied: true })),
  );
  // Nothing was re-applied: the applied_at stamps did not move.
  const after = await keyspaces.query(`SELECT version, applied_at FROM ${ns}.schema_migrations`);
  t.deepEqual(
    after.map((r) => [r['version'], (r['applied_at'] as Date).getTime()]),
    before.map((r) => [r['version'], (r['applied_at'] as Date).getTime()]),
  );
});

test('concurrent first opens apply each migration once and both work', async (t) => {
  t.timeout(180_000);
  const { keyspaces } = t.context;
  const ns = keyspaces.name();
  const log = countingLogger();
  const [a, b, c] = await Promise.all([
    CassandraStore.open({ ...cassandraOptions(ns), log }),
    CassandraStore.open({ ...cassandraOptions(ns), log }),
    CassandraFileStore.open({ ...cassandraOptions(ns), log }),
  ]);
  try {
    await a.write([{ op: 'put', table: 't', partition: 'p', sort: 's', value: bytes('from a') }]);
    t.is(text((await b.get({ table: 't', partition: 'p', sort: 's' }))!), 'from a');
    await c.put(
      'x',
      (async function* () {
        yield bytes('file');
      })(),
      'text/plain',
    );
    t.deepEqual(await c.stat('x'), { size: 4, contentType: 'text/plain' });
  } finally {
    await Promise.all([a.close(), b.close(), c.close()]);
  }
  const rows = await recorded(keyspaces, ns);
  const versions = await cqlVersions();
  t.is(rows.length, versions.length);
  t.true(rows.every((r) => r.applied));
  // Three sessions raced, yet each version was applied by exactly one of them.
  t.deepEqual(
    [...log.applied].sort((x, y) => x - y),
    versions.sort((x, y) => x - y),
  );
});

test('namespaces must be plain lowercase names', async (t) => {
  for (const bad of ['', '1abc', 'Abc', 'a-b', 'a.b', 'a'.repeat(33), 'drop keyspace']) {
    t.throws(() => checkKeyspace(bad), { message: /invalid namespace/ }, bad);
    await t.throwsAsync(CassandraStore.open(cassandraOptions(bad)), { message: /invalid namespace/ }, bad);
  }
  t.notThrows(() => checkKeyspace('a'.repeat(32)));
  t.notThrows(() => checkKeyspace('t_0123abcd'));
});
