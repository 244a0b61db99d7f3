import kafkajs, { type Producer } from 'kafkajs';
import { FencedError, type JournalPartition } from '@chat/runtime';
import type { KafkaJournal } from '../src/index.js';
import { bytes, collect, freshNamespace, journalTest, kafkaBrokers, text } from './kafka-helpers.js';

const { Kafka, Partitioners, logLevel } = kafkajs;
const test = journalTest<{ producers: Producer[] }>();

test.before((t) => {
  t.context.producers = [];
});
test.after.always(async (t) => {
  await Promise.all((t.context.producers ?? []).map((p) => p.disconnect().catch(() => {})));
});

const fence = (epoch: number, shard = 3) => ({ shard, epoch });
const record = (data: string) => [{ key: 'k', data: bytes(data) }];

async function dataOf(journal: KafkaJournal, p: JournalPartition) {
  return (await collect(journal.read(p, -1))).map((r) => text(r.data));
}

/** A bare kafkajs transactional producer, standing in for an old owner or a stray writer. */
async function rawProducer(t: { context: { producers: Producer[] } }, transactionalId: string): Promise<Producer> {
  const kafka = new Kafka({ brokers: kafkaBrokers(), clientId: 'raw', logLevel: logLevel.NOTHING });
  const producer = kafka.producer({
    transactionalId,
    maxInFlightRequests: 1,
    retry: { retries: 2, initialRetryTime: 50 },
    createPartitioner: Partitioners.DefaultPartitioner,
  });
  t.context.producers.push(producer);
  await producer.connect();
  return producer;
}

test('a newer owner fences the older one: its appends are refused and never read', async (t) => {
  const namespace = freshNamespace();
  const channel3: JournalPartition = { topic: 'channel', shard: 3 };
  const a = await t.context.journals.make(namespace);
  await a.fence(fence(1));
  await a.append(channel3, record('a1'), fence(1));

  const b = await t.context.journals.make(namespace);
  await b.fence(fence(2));
  const refused = await t.throwsAsync(a.append(channel3, record('a2 refused'), fence(1)), { instanceOf: FencedError });
  t.is(refused?.currentEpoch, 2);
  // Still refused later, also for the shard's other partitions.
  await t.throwsAsync(a.append({ topic: 'user', shard: 3 }, record('a3 refused'), fence(1)), {
    instanceOf: FencedError,
  });
  await b.append(channel3, record('b1'), fence(2));
  t.deepEqual(await dataOf(b, channel3), ['a1', 'b1']);
  t.deepEqual(await dataOf(b, { topic: 'user', shard: 3 }), []);
  // Other shards are not affected.
  await a.fence(fence(1, 0));
  await a.append({ topic: 'channel', shard: 0 }, record('a on shard 0'), fence(1, 0));
});

test('a stale owner cannot take the shard back; the current owner keeps it', async (t) => {
  const namespace = freshNamespace();
  const channel3: JournalPartition = { topic: 'channel', shard: 3 };
  const current = await t.context.journals.make(namespace);
  await current.fence(fence(5));
  await current.append(channel3, record('before'), fence(5));

  const stale = await t.context.journals.make(namespace);
  const err = await t.throwsAsync(stale.fence(fence(4)), { instanceOf: FencedError });
  t.is(err?.currentEpoch, 5);
  await t.throwsAsync(stale.append(channel3, record('stale'), fence(4)));

  await current.append(channel3, record('after'), fence(5));
  t.deepEqual(await dataOf(current, channel3), ['before', 'after']);
});

test('an owner whose producer was taken over without a newer epoch gets past it within the append', async (t) => {
  // Stands for a stale owner that passed its check just before the current
  // one recorded its epoch, or for the owner's own transaction timing out.
  const namespace = freshNamespace();
  const channel3: JournalPartition = { topic: 'channel', shard: 3 };
  const owner = await t.context.journals.make(namespace);
  await owner.fence(fence(1));
  await owner.append(channel3, record('before'), fence(1));
  const intruder = await rawProducer(t, `${namespace}.shard.3`);
  await (await intruder.transaction()).commit();

  // Its send is refused (INVALID_PRODUCER_EPOCH); the book holds no newer epoch, so a new producer sends it again.
  await owner.append(channel3, record('after'), fence(1));
  await owner.append(channel3, record('again'), fence(1));
  t.deepEqual(await dataOf(owner, channel3), ['before', 'after', 'again']);
});

test('a failed append fails the appends queued behind it; later ones succeed', async (t) => {
  const journal = await t.context.journals.make(freshNamespace());
  const p: JournalPartition = { topic: 'channel', shard: 0 };
  await journal.fence(fence(1, 0));
  await journal.append(p, record('first'), fence(1, 0));
  // Larger than the broker takes in one batch (message.max.bytes, 1 MB by default).
  const tooLarge = [{ key: 'k', data: new Uint8Array(1_500_000) }];
  const results = await Promise.allSettled([
    journal.append(p, tooLarge, fence(1, 0)),
    journal.append(p, record('queued 1'), fence(1, 0)),
    journal.append({ topic: 'user', shard: 0 }, record('queued 2'), fence(1, 0)),
  ]);
  t.deepEqual(
    results.map((r) => r.status),
    ['rejected', 'rejected', 'rejected'],
  );
  await journal.append(p, record('later'), fence(1, 0));
  t.deepEqual(await dataOf(journal, p), ['first', 'later']);
  t.deepEqual(await dataOf(journal, { topic: 'user', shard: 0 }), []);
});

test("an old owner's open transaction is aborted by the fence and never read", async (t) => {
  const namespace = freshNamespace();
  const journal = await t.context.journals.make(namespace);
  await journal.fence(fence(1, 2));
  await journal.append({ topic: 'channel', shard: 2 }, record('topic exists'), fence(1, 2));

  const zombie = await rawProducer(t, `${namespace}.shard.3`);
  const txn = await zombie.transaction();
  await txn.send({ topic: `${namespace}.journal.channel`, messages: [{ key: 'k', value: 'zombie', partition: 3 }] });

  await journal.fence(fence(1));
  await t.throwsAsync(txn.commit());
  await journal.append({ topic: 'channel', shard: 3 }, record('owner'), fence(1));
  t.deepEqual(await dataOf(journal, { topic: 'channel', shard: 3 }), ['owner']);
});

test('aborted records are never read; a partition of aborted records only reads empty', async (t) => {
  const namespace = freshNamespace();
  const journal = await t.context.journals.make(namespace);
  await journal.fence(fence(1, 0));
  await journal.append({ topic: 'channel', shard: 0 }, record('first'), fence(1, 0));

  const stray = await rawProducer(t, `${namespace}.stray`);
  const topic = `${namespace}.journal.channel`;
  const txn = await stray.transaction();
  await txn.send({
    topic,
    messages: [
      { key: 'k', value: 'aborted 0', partition: 0 },
      { key: 'k', value: 'aborted 1', partition: 1 },
    ],
  });
  await txn.abort();
  await journal.append({ topic: 'channel', shard: 0 }, record('second'), fence(1, 0));

  t.deepEqual(await dataOf(journal, { topic: 'channel', shard: 0 }), ['first', 'second']);
  const started = Date.now();
  t.deepEqual(await dataOf(journal, { topic: 'channel', shard: 1 }), []);
  t.log(`read of a partition holding only an aborted transaction: ${Date.now() - started} ms`);
});
