import anyTest, { type TestFn } from 'ava';
import { appendFile, readdir, stat, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FencedError, type JournalPartition } from '@chat/runtime';
import { FileJournal } from '../src/index.js';
import { crc32, crc32Portable } from '../src/journal/crc32.js';
import { bytes, collect, TempDirs, text } from './helpers.js';

const test = anyTest as TestFn<{ dirs: TempDirs }>;

test.before((t) => {
  t.context.dirs = new TempDirs();
});
test.after.always(async (t) => {
  await t.context.dirs.removeAll();
});

const channels: JournalPartition = { topic: 'channel', shard: 1 };
const users: JournalPartition = { topic: 'user', shard: 1 };
const fence = (epoch = 1, shard = 1) => ({ shard, epoch });

const segmentFiles = async (dir: string) => (await readdir(dir)).filter((n) => n.endsWith('.log')).sort();

async function readAll(journal: FileJournal, p: JournalPartition, after = 0) {
  return (await collect(journal.read(p, after))).map((r) => ({ position: r.position, key: r.key, data: text(r.data) }));
}

test('the portable CRC-32 matches the native one', (t) => {
  const data = bytes('The quick brown fox jumps over the lazy dog');
  t.is(crc32Portable(data), 0x414fa339);
  t.is(crc32(data), 0x414fa339);
});

test('appends read back in order per partition, positions increasing', async (t) => {
  const journal = await FileJournal.open(await t.context.dirs.make('order'));
  const a = await journal.append(
    channels,
    [
      { key: 'c1', data: bytes('one') },
      { key: 'c2', data: bytes('two') },
    ],
    fence(),
  );
  const b = await journal.append(users, [{ key: 'u1', data: bytes('uno') }], fence());
  const c = await journal.append(channels, [{ key: 'c1', data: bytes('three') }], fence());
  const all = [...a, ...b, ...c];
  t.deepEqual(
    all,
    [...all].sort((x, y) => x - y),
  );
  t.is(new Set(all).size, all.length);

  const read = await readAll(journal, channels);
  t.deepEqual(
    read.map((r) => r.data),
    ['one', 'two', 'three'],
  );
  t.deepEqual(
    read.map((r) => r.position),
    [...a, ...c],
  );
  t.deepEqual(
    (await readAll(journal, users)).map((r) => r.key),
    ['u1'],
  );
  t.deepEqual(
    (await readAll(journal, channels, a[1]!)).map((r) => r.data),
    ['three'],
  );
  t.deepEqual(await readAll(journal, { topic: 'channel', shard: 2 }), []);
  await journal.close();
});

test('a reopened journal reads everything and keeps positions increasing', async (t) => {
  const dir = await t.context.dirs.make('reopen');
  let journal = await FileJournal.open(dir, { segmentBytes: 256 });
  const written: string[] = [];
  for (let i = 0; i < 20; i++) {
    written.push(`record ${i}`);
    await journal.append(channels, [{ key: 'k', data: bytes(`record ${i}`) }], fence());
  }
  const before = await readAll(journal, channels);
  await journal.close();
  t.true((await segmentFiles(dir)).length > 1, 'several segments');

  journal = await FileJournal.open(dir, { segmentBytes: 256 });
  const after = await readAll(journal, channels);
  t.deepEqual(after, before);
  t.deepEqual(
    after.map((r) => r.data),
    written,
  );
  const [next] = await journal.append(channels, [{ key: 'k', data: bytes('more') }], fence());
  t.true(next! > before.at(-1)!.position);
  await journal.close();
});

test('garbage after the last record is cut off on reopen; appends still work', async (t) => {
  const dir = await t.context.dirs.make('garbage');
  let journal = await FileJournal.open(dir);
  await journal.append(
    channels,
    [
      { key: 'k', data: bytes('a') },
      { key: 'k', data: bytes('b') },
    ],
    fence(),
  );
  await journal.close();
  const [file] = await segmentFiles(dir);
  const goodSize = (await stat(join(dir, file!))).size;
  await appendFile(join(dir, file!), Buffer.from([0x30, 0, 0, 0, 0xde, 0xad, 0xbe, 0xef, 1, 2, 3]));

  journal = await FileJournal.open(dir);
  t.is((await stat(join(dir, file!))).size, goodSize, 'tail truncated');
  t.deepEqual(
    (await readAll(journal, channels)).map((r) => r.data),
    ['a', 'b'],
  );
  await journal.append(channels, [{ key: 'k', data: bytes('c') }], fence());
  await journal.close();

  journal = await FileJournal.open(dir);
  t.deepEqual(
    (await readAll(journal, channels)).map((r) => r.data),
    ['a', 'b', 'c'],
  );
  await journal.close();
});

test('a record torn mid-write is dropped on reopen, the ones before survive', async (t) => {
  const dir = await t.context.dirs.make('torn');
  let journal = await FileJournal.open(dir);
  await journal.append(channels, [{ key: 'k', data: bytes('kept') }], fence());
  await journal.append(channels, [{ key: 'k', data: bytes('torn-in-half') }], fence());
  await journal.close();
  const [file] = await segmentFiles(dir);
  const size = (await stat(join(dir, file!))).size;
  await truncate(join(dir, file!), size - 7);

  journal = await FileJournal.open(dir);
  t.deepEqual(
    (await readAll(journal, channels)).map((r) => r.data),
    ['kept'],
  );
  await journal.append(channels, [{ key: 'k', data: bytes('new') }], fence());
  await journal.close();
  journal = await FileJournal.open(dir);
  t.deepEqual(
    (await readAll(journal, channels)).map((r) => r.data),
    ['kept', 'new'],
  );
  await journal.close();
});

test('damage in a sealed segment is refused rather than skipped', async (t) => {
  const dir = await t.context.dirs.make('sealed');
  const journal = await FileJournal.open(dir, { segmentBytes: 64 });
  for (let i = 0; i < 3; i++) await journal.append(channels, [{ key: 'k', data: bytes(`r${i}`) }], fence());
  await journal.close();
  const [first] = await segmentFiles(dir);
  await writeFile(join(dir, first!), Buffer.from('not a journal record at all'));
  await t.throwsAsync(FileJournal.open(dir, { segmentBytes: 64 }), { message: /damaged/ });
});

test('concurrent appends share fsyncs (group commit)', async (t) => {
  const journal = await FileJournal.open(await t.context.dirs.make('group'));
  const before = { ...journal.stats };
  const n = 200;
  const results = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      journal.append({ topic: 'channel', shard: i % 4 }, [{ key: `k${i}`, data: bytes(`m${i}`) }], fence(1, i % 4)),
    ),
  );
  const fsyncs = journal.stats.fsyncs - before.fsyncs;
  t.log(`${n} concurrent appends: ${fsyncs} fsyncs, stats ${JSON.stringify(journal.stats)}`);
  t.true(fsyncs < 50, `${fsyncs} fsyncs`);
  t.is(journal.stats.appends - before.appends, n);
  t.is(journal.stats.records - before.records, n);
  // The log order is the call order.
  const positions = results.map((r) => r[0]!);
  t.deepEqual(
    positions,
    [...positions].sort((a, b) => a - b),
  );
  for (let shard = 0; shard < 4; shard++) {
    const read = await readAll(journal, { topic: 'channel', shard });
    t.is(read.length, n / 4);
  }
  await journal.close();
});

test('an append made when a batch resolves is not stranded', async (t) => {
  const journal = await FileJournal.open(await t.context.dirs.make('chain'));
  let position = 0;
  for (let i = 0; i < 5; i++) {
    [position] = (await journal.append(channels, [{ key: 'k', data: bytes(String(i)) }], fence())) as [number];
  }
  t.is((await readAll(journal, channels)).at(-1)!.position, position);
  await journal.close();
});

test('release deletes segments whose records are all released', async (t) => {
  const dir = await t.context.dirs.make('release');
  const journal = await FileJournal.open(dir, { segmentBytes: 100 });
  const positions: number[] = [];
  for (let i = 0; i < 10; i++) {
    const [p] = await journal.append(channels, [{ key: 'k', data: bytes(`record number ${i}`) }], fence());
    positions.push(p!);
  }
  // One record of another partition, never released, pins its segment.
  await journal.append(users, [{ key: 'u', data: bytes('pinned') }], fence());
  await journal.append(channels, [{ key: 'k', data: bytes('last') }], fence());
  const filesBefore = await segmentFiles(dir);
  t.true(filesBefore.length >= 10, `${filesBefore.length} segments`);

  await journal.release(channels, positions[6]!);
  const filesAfter = await segmentFiles(dir);
  t.log(`segments before release: ${filesBefore.length}, after: ${filesAfter.length}`);
  t.true(filesAfter.length <= filesBefore.length - 6);
  t.deepEqual(
    (await readAll(journal, channels)).map((r) => r.data),
    ['record number 7', 'record number 8', 'record number 9', 'last'],
  );

  // Releasing everything of `channel` still keeps the `user` record's segment
  // and the active one.
  await journal.release(channels, Number.MAX_SAFE_INTEGER);
  t.deepEqual(await readAll(journal, channels), []);
  t.deepEqual(
    (await readAll(journal, users)).map((r) => r.data),
    ['pinned'],
  );
  t.true((await segmentFiles(dir)).length <= 2);
  await journal.close();
});

test('positions keep increasing after every segment but the active one is released', async (t) => {
  const dir = await t.context.dirs.make('release-reopen');
  let journal = await FileJournal.open(dir, { segmentBytes: 64 });
  let last = 0;
  for (let i = 0; i < 5; i++)
    [last] = (await journal.append(channels, [{ key: 'k', data: bytes(`r${i}`) }], fence())) as [number];
  await journal.release(channels, last);
  await journal.close();
  journal = await FileJournal.open(dir, { segmentBytes: 64 });
  const [next] = await journal.append(channels, [{ key: 'k', data: bytes('after') }], fence());
  t.true(next! > last);
  await journal.close();
});

test('a stale epoch is fenced, also after a restart', async (t) => {
  const dir = await t.context.dirs.make('fence');
  let journal = await FileJournal.open(dir);
  await journal.append(channels, [{ key: 'k', data: bytes('e1') }], fence(1));
  await journal.append(channels, [{ key: 'k', data: bytes('e3') }], fence(3));
  const err = await t.throwsAsync(journal.append(channels, [{ key: 'k', data: bytes('e2') }], fence(2)), {
    instanceOf: FencedError,
  });
  t.is(err?.currentEpoch, 3);
  // Another shard has its own epoch.
  await journal.append({ topic: 'channel', shard: 2 }, [{ key: 'k', data: bytes('s2') }], fence(1, 2));
  await journal.close();

  journal = await FileJournal.open(dir);
  await t.throwsAsync(journal.append(channels, [{ key: 'k', data: bytes('e2') }], fence(2)), {
    instanceOf: FencedError,
  });
  await journal.append(channels, [{ key: 'k', data: bytes('e3 again') }], fence(3));
  t.deepEqual(
    (await readAll(journal, channels)).map((r) => r.data),
    ['e1', 'e3', 'e3 again'],
  );
  await journal.close();
});

test('close waits for queued appends; later appends are refused', async (t) => {
  const journal = await FileJournal.open(await t.context.dirs.make('close'));
  const pending = Array.from({ length: 10 }, (_, i) =>
    journal.append(channels, [{ key: 'k', data: bytes(String(i)) }], fence()),
  );
  await journal.close();
  t.is((await Promise.all(pending)).length, 10);
  await t.throwsAsync(journal.append(channels, [{ key: 'k', data: bytes('x') }], fence()), { message: /closed/ });
});
