import { randomBytes } from 'node:crypto';
import cassandra from 'cassandra-driver';
import type { CassandraOptions } from '../src/index.js';

/** Where the shared Cassandra runs; the tests fail loudly, never skip, when the engines are not up. */
export function cassandraOptions(keyspace: string): CassandraOptions {
  const points = process.env.CASSANDRA_CONTACT_POINTS;
  if (!points) {
    throw new Error(
      'CASSANDRA_CONTACT_POINTS is not set. Start the engines and export their addresses: ' +
        '`eval "$(infra/up.sh)"` (or `set -a; . /tmp/chat-infra/infra.env; set +a`), or run `npm test`.',
    );
  }
  return {
    contactPoints: points.split(',').map((p) => p.trim()),
    localDataCenter: process.env.CASSANDRA_LOCAL_DC ?? 'datacenter1',
    keyspace,
  };
}

export const freshNamespace = () => `t_${randomBytes(6).toString('hex')}`;

/**
 * A plain driver session for the tests' own look-ups (schema_migrations,
 * leftover chunks) and for dropping the keyspaces a test file created.
 */
export class Keyspaces {
  private readonly made: string[] = [];
  private client: cassandra.Client | undefined;

  name(): string {
    const ns = freshNamespace();
    this.made.push(ns);
    return ns;
  }

  async session(): Promise<cassandra.Client> {
    if (!this.client) {
      const opts = cassandraOptions('unused');
      this.client = new cassandra.Client({
        contactPoints: opts.contactPoints,
        localDataCenter: opts.localDataCenter,
        encoding: { useBigIntAsLong: true },
      });
      await this.client.connect();
    }
    return this.client;
  }

  async query(cql: string, params: unknown[] = []): Promise<cassandra.types.Row[]> {
    return (await (await this.session()).execute(cql, params, { prepare: true })).rows;
  }

  async dropAll(): Promise<void> {
    const client = await this.session();
    for (const ns of this.made) await client.execute(`DROP KEYSPACE IF EXISTS ${ns}`);
    await client.shutdown();
  }
}

export async function collect<T>(source: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of source) out.push(item);
  return out;
}

export const bytes = (text: string) => new TextEncoder().encode(text);
export const text = (data: Uint8Array) => new TextDecoder().decode(data);
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
