import type { JournalPartition } from '@chat/runtime';
import { bytes, collect, freshNamespace, journalTest, text } from './kafka-helpers.js';

// Measurements for the report, printed with t.log; the assertions check only
// results, never times (the machine is shared).
const test = journalTest();

const fence = (epoch = 1, shard = 0) => ({ shard, epoch });
const payload = (i: number) => bytes(JSON.stringify({ i, text: 'x'.repeat(180) }));
const ms = (from: bigint) => Number(process.hrtime.bigint() - from) / 1e6;
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

test.serial('one shard: a lone append, then 50 concurrent appenders', async (t) => {
  const journal = await t.context.journals.make(freshNamespace());
  const started = process.hrtime.bigint();
  await journal.fence(fence());
  t.log(`fence (record epoch, InitProducerId, check): ${ms(started).toFixed(0)} ms`);
  const p: JournalPartition = { topic: 'channel', shard: 0 };
  await journal.append(p, [{ key: 'warm', data: payload(-1) }], fence());

  const lone: number[] = [];
  for (let i = 0; i < 30; i++) {
    const at = process.hrtime.bigint();
    await journal.append(p, [{ key: 'lone', data: payload(i) }], fence());
    lone.push(ms(at));
  }
  lone.sort((a, b) => a - b);
  t.log(`lone append: median ${percentile(lone, 0.5).toFixed(1)} ms, p90 ${percentile(lone, 0.9).toFixed(1)} ms`);

  const appenders = 50;
  const each = 40;
  const before = { ...journal.stats };
  const at = process.hrtime.bigint();
  const positions = await Promise.all(
    Array.from({ length: appenders }, async (_, a) => {
      const mine: number[] = [];
      for (let i = 0; i < each; i++) {
        const [position] = await journal.append(p, [{ key: `a${a}`, data: payload(i) }], fence());
        mine.push(position!);
      }
      return mine;
    }),
  );
  const elapsed = ms(at);
  const transactions = journal.stats.transactions - before.transactions;
  const total = appenders * each;
  t.log(
    `${appenders} concurrent appenders, ${total} appends: ${((total / elapsed) * 1000).toFixed(0)} appends/s, ` +
      `${transactions} transactions (${(total / transactions).toFixed(1)} appends each)`,
  );
  for (const mine of positions)
    t.deepEqual(
      mine,
      [...mine].sort((x, y) => x - y),
    );
  t.is(new Set(positions.flat()).size, total);
  t.is(journal.stats.appends - before.appends, total);
});

test.serial('recovery read of a 1,000-record partition by a new owner', async (t) => {
  const namespace = freshNamespace();
  const writer = await t.context.journals.make(namespace);
  await writer.fence(fence(1, 1));
  const p: JournalPartition = { topic: 'user', shard: 1 };
  const n = 1000;
  await Promise.all(
    Array.from({ length: n }, (_, i) => writer.append(p, [{ key: `u${i % 7}`, data: payload(i) }], fence(1, 1))),
  );
  await writer.close();

  const owner = await t.context.journals.make(namespace);
  let at = process.hrtime.bigint();
  await owner.fence(fence(2, 1));
  const fenceMs = ms(at);
  at = process.hrtime.bigint();
  const records = await collect(owner.read(p, -1));
  const readMs = ms(at);
  at = process.hrtime.bigint();
  const empty = await collect(owner.read({ topic: 'queue', shard: 1 }, -1));
  const emptyMs = ms(at);
  at = process.hrtime.bigint();
  const tail = await collect(owner.read(p, records[n - 11]!.position));
  const tailMs = ms(at);
  t.log(
    `new owner: fence ${fenceMs.toFixed(0)} ms; read of ${n} records ${readMs.toFixed(0)} ms; ` +
      `last 10 ${tailMs.toFixed(0)} ms; empty partition ${emptyMs.toFixed(0)} ms`,
  );
  t.is(records.length, n);
  t.deepEqual(
    records.map((r) => (JSON.parse(text(r.data)) as { i: number }).i),
    Array.from({ length: n }, (_, i) => i),
  );
  t.deepEqual(empty, []);
  t.is(tail.length, 10);
});
