import { FencedError, type JournalPartition } from '@chat/runtime';
import type { KafkaJournal } from '../src/index.js';
import { bytes, collect, freshNamespace, journalTest, text } from './kafka-helpers.js';

const test = journalTest();

const channels: JournalPartition = { topic: 'channel', shard: 1 };
const users: JournalPartition = { topic: 'user', shard: 1 };
const fence = (epoch = 1, shard = 1) => ({ shard, epoch });

async function readAll(journal: KafkaJournal, p: JournalPartition, after = -1) {
  return (await collect(journal.read(p, after))).map((r) => ({ position: r.position, key: r.key, data: text(r.data) }));
}

test('appends read back in order per partition, positions increasing; reads end', async (t) => {
  const journal = await t.context.journals.make(freshNamespace());
  await journal.fence(fence());
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
  const inChannels = [...a, ...c];
  t.deepEqual(
    inChannels,
    [...inChannels].sort((x, y) => x - y),
  );
  t.is(new Set(inChannels).size, 3);
  t.is(b.length, 1);

  const read = await readAll(journal, channels);
  t.deepEqual(
    read.map((r) => [r.key, r.data]),
    [
      ['c1', 'one'],
      ['c2', 'two'],
      ['c1', 'three'],
    ],
  );
  t.deepEqual(
    read.map((r) => r.position),
    inChannels,
  );
  t.deepEqual(
    (await readAll(journal, users)).map((r) => r.key),
    ['u1'],
  );
  t.deepEqual(
    (await readAll(journal, channels, a[1]!)).map((r) => r.data),
    ['three'],
  );
  t.deepEqual(await readAll(journal, channels, c[0]!), [], 'nothing after the last record');
  t.deepEqual(await readAll(journal, { topic: 'channel', shard: 2 }), [], 'an empty partition');
  t.deepEqual(await readAll(journal, { topic: 'never-written', shard: 0 }), [], 'a topic nobody wrote');
});

test('a new journal instance reads everything and keeps positions increasing', async (t) => {
  const namespace = freshNamespace();
  const first = await t.context.journals.make(namespace);
  await first.fence(fence(1));
  const written: string[] = [];
  for (let i = 0; i < 5; i++) {
    written.push(`record ${i}`);
    await first.append(channels, [{ key: 'k', data: bytes(`record ${i}`) }], fence(1));
  }
  const before = await readAll(first, channels);
  await first.close();

  // As a new owner does: fence, then read.
  const second = await t.context.journals.make(namespace);
  await second.fence(fence(2));
  const after = await readAll(second, channels);
  t.deepEqual(after, before);
  t.deepEqual(
    after.map((r) => r.data),
    written,
  );
  const [next] = await second.append(channels, [{ key: 'k', data: bytes('more') }], fence(2));
  t.true(next! > before.at(-1)!.position);
});

test('pipelined appends keep call order per partition and share transactions', async (t) => {
  const journal = await t.context.journals.make(freshNamespace());
  await journal.fence(fence(1, 2));
  const parts: JournalPartition[] = [
    { topic: 'channel', shard: 2 },
    { topic: 'user', shard: 2 },
  ];
  const before = { ...journal.stats };
  const n = 200;
  const results = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      journal.append(parts[i % 2]!, [{ key: `k${i}`, data: bytes(`m${i}`) }], fence(1, 2)),
    ),
  );
  const transactions = journal.stats.transactions - before.transactions;
  t.log(`${n} pipelined appends in ${transactions} transactions`);
  t.true(transactions < n / 2, `${transactions} transactions`);
  for (const [k, p] of parts.entries()) {
    const positions = results.filter((_, i) => i % 2 === k).map((r) => r[0]!);
    t.deepEqual(
      positions,
      [...positions].sort((x, y) => x - y),
    );
    const read = await readAll(journal, p);
    t.deepEqual(
      read.map((r) => r.data),
      Array.from({ length: n / 2 }, (_, i) => `m${2 * i + k}`),
    );
    t.deepEqual(
      read.map((r) => r.position),
      positions,
    );
  }
});

test('appends need a fence taken here, at their epoch', async (t) => {
  const journal = await t.context.journals.make(freshNamespace());
  const record = [{ key: 'k', data: bytes('x') }];
  await t.throwsAsync(journal.append(channels, record, fence(1)), { message: /call fence/ });
  await journal.fence(fence(2));
  const stale = await t.throwsAsync(journal.append(channels, record, fence(1)), { instanceOf: FencedError });
  t.is(stale?.currentEpoch, 2);
  await t.throwsAsync(journal.fence(fence(1)), { instanceOf: FencedError });
  await t.throwsAsync(journal.append(channels, record, fence(3)), { message: /call fence/ });
  await t.throwsAsync(journal.append({ topic: 'channel', shard: 9 }, record, fence(1, 9)), { message: /fence/ });
  t.deepEqual(await journal.append(channels, record, fence(2)), [0]);
});

test('release drops records up to a position; later reads start after it', async (t) => {
  const journal = await t.context.journals.make(freshNamespace());
  await journal.fence(fence());
  const positions: number[] = [];
  for (let i = 0; i < 6; i++) {
    const [p] = await journal.append(channels, [{ key: 'k', data: bytes(`r${i}`) }], fence());
    positions.push(p!);
  }
  await journal.release(channels, positions[3]!);
  t.deepEqual(
    (await readAll(journal, channels)).map((r) => r.data),
    ['r4', 'r5'],
  );
  t.deepEqual(
    (await readAll(journal, channels, positions[4]!)).map((r) => r.data),
    ['r5'],
  );
  await journal.release(channels, -1);
  const [next] = await journal.append(channels, [{ key: 'k', data: bytes('after') }], fence());
  t.true(next! > positions[5]!);
});

test('close waits for queued appends; later appends are refused', async (t) => {
  const journal = await t.context.journals.make(freshNamespace());
  await journal.fence(fence());
  const pending = Array.from({ length: 10 }, (_, i) =>
    journal.append(channels, [{ key: 'k', data: bytes(String(i)) }], fence()),
  );
  await journal.close();
  t.is((await Promise.all(pending)).length, 10);
  await t.throwsAsync(journal.append(channels, [{ key: 'k', data: bytes('x') }], fence()), { message: /closed/ });
});
