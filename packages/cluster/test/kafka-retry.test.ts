import kafkajs, { type Kafka, type Producer, type ProducerConfig, type Transaction } from 'kafkajs';
import type { JournalPartition } from '@chat/runtime';
import type { KafkaJournal } from '../src/index.js';
import { bytes, collect, freshNamespace, journalTest, text } from './kafka-helpers.js';

const { KafkaJSError } = kafkajs;
const test = journalTest();

const fence = { shard: 0, epoch: 1 };
const p: JournalPartition = { topic: 'channel', shard: 0 };
const record = (data: string) => [{ key: 'k', data: bytes(data) }];

/**
 * Makes the journal's shard producers fail once at `step` of a transaction that sent records, once `armed`:
 * a request whose answer timed out (kafkajs marks that retriable) although the broker did what it asked,
 * or, for 'lost commit', a commit request that never reached the broker.
 */
function failOnceAfter(journal: KafkaJournal, step: 'sendBatch' | 'commit' | 'lost commit') {
  const injection = { armed: true, failed: false };
  const kafka = (journal as unknown as { kafka: Kafka }).kafka;
  const producer = kafka.producer.bind(kafka);
  kafka.producer = (config?: ProducerConfig): Producer => {
    const made = producer(config);
    const transaction = made.transaction.bind(made);
    made.transaction = async (): Promise<Transaction> => {
      const txn = await transaction();
      const { sendBatch, commit } = { sendBatch: txn.sendBatch.bind(txn), commit: txn.commit.bind(txn) };
      let sent = false;
      const fail = () => {
        if (!injection.armed || injection.failed) return;
        injection.failed = true;
        throw new KafkaJSError(`${step} answer timed out (injected)`, { retriable: true });
      };
      txn.sendBatch = async (batch) => {
        const result = await sendBatch(batch);
        sent = true;
        if (step === 'sendBatch') fail();
        return result;
      };
      txn.commit = async () => {
        if (step === 'lost commit' && sent) fail();
        await commit();
        if (step === 'commit' && sent) fail();
      };
      return txn;
    };
    return made;
  };
  return injection;
}

async function dataOf(journal: KafkaJournal) {
  return (await collect(journal.read(p, -1))).map((r) => text(r.data));
}

test('a transaction that fails before its commit is tried again with a new producer; its records are read once', async (t) => {
  const journal = await t.context.journals.make(freshNamespace());
  const injection = failOnceAfter(journal, 'sendBatch');
  await journal.fence(fence);
  const appends = [journal.append(p, record('one'), fence), journal.append(p, record('two'), fence)];
  const positions = (await Promise.all(appends)).flat();
  t.true(injection.failed, 'the first send failed');
  t.deepEqual(await dataOf(journal), ['one', 'two'], 'the failed transaction was aborted: nothing twice');
  t.deepEqual(
    (await collect(journal.read(p, -1))).map((r) => r.position),
    positions,
  );
  await journal.append(p, record('three'), fence);
  t.deepEqual(await dataOf(journal), ['one', 'two', 'three']);
});

test('a commit whose answer was lost is found committed: the appends succeed, each record read once', async (t) => {
  const journal = await t.context.journals.make(freshNamespace());
  const injection = failOnceAfter(journal, 'commit');
  injection.armed = false;
  await journal.fence(fence);
  await journal.append(p, record('first'), fence);
  injection.armed = true;
  const [position] = await journal.append(p, record('committed'), fence);
  t.true(injection.failed, 'the commit failed');
  const read = await collect(journal.read(p, -1));
  t.deepEqual(
    read.map((r) => text(r.data)),
    ['first', 'committed'],
    'read back, not sent again',
  );
  t.is(read[1]!.position, position);
});

test('a commit that never reached the broker is found aborted and sent again, once', async (t) => {
  const journal = await t.context.journals.make(freshNamespace());
  const injection = failOnceAfter(journal, 'lost commit');
  injection.armed = false;
  await journal.fence(fence);
  await journal.append(p, record('first'), fence);
  injection.armed = true;
  await journal.append(p, record('second'), fence);
  t.true(injection.failed, 'the commit failed');
  t.deepEqual(await dataOf(journal), ['first', 'second']);
});
