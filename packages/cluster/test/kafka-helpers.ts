import { randomBytes } from 'node:crypto';
import anyTest, { type TestFn } from 'ava';
import { KafkaJournal, type KafkaJournalOptions } from '../src/index.js';

/** The shared broker's address; the tests fail loudly, never skip, when the engines are not up. */
export function kafkaBrokers(): string[] {
  const brokers = process.env.KAFKA_BROKERS;
  if (!brokers) {
    throw new Error(
      'KAFKA_BROKERS is not set. Start the engines and export their addresses: ' +
        '`eval "$(infra/up.sh)"` (or `set -a; . /tmp/chat-infra/infra.env; set +a`), or run `npm test`.',
    );
  }
  return brokers.split(',');
}

export const freshNamespace = () => `t_${randomBytes(6).toString('hex')}`;

export const bytes = (text: string) => new TextEncoder().encode(text);
export const text = (data: Uint8Array) => new TextDecoder().decode(data);

export async function collect<T>(source: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of source) out.push(item);
  return out;
}

/** Journals opened by a test file, closed and their namespaces deleted in `after.always`. */
export class Journals {
  private readonly open: KafkaJournal[] = [];
  private readonly namespaces = new Set<string>();

  async make(namespace: string, extra: Partial<KafkaJournalOptions> = {}): Promise<KafkaJournal> {
    // Noted first: a failed open may still have created topics.
    this.namespaces.add(namespace);
    const journal = await KafkaJournal.open({
      brokers: kafkaBrokers(),
      namespace,
      shardCount: 4,
      clientId: `test-${namespace}`,
      ...extra,
    });
    this.open.push(journal);
    return journal;
  }

  async cleanUp(): Promise<void> {
    await Promise.all(this.open.map((j) => j.close().catch(() => {})));
    for (const namespace of this.namespaces) {
      const journal = await KafkaJournal.open({ brokers: kafkaBrokers(), namespace, shardCount: 4 });
      await journal.deleteNamespace();
      await journal.close();
    }
  }
}

/**
 * The test function of a file whose tests open journals: it fails at once without the engines'
 * addresses, and closes the file's journals and deletes their namespaces after its last test.
 */
export function journalTest<Extra extends object = object>(): TestFn<{ journals: Journals } & Extra> {
  const test = anyTest as TestFn<{ journals: Journals } & Extra>;
  test.before((t) => {
    kafkaBrokers();
    t.context.journals = new Journals();
  });
  test.after.always(async (t) => {
    await t.context.journals?.cleanUp();
  });
  return test;
}
