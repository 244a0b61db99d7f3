import { readdir, readFile } from 'node:fs/promises';
import cassandra from 'cassandra-driver';
import { silentLogger, type Logger } from '@chat/runtime';

const { Client, types } = cassandra;
type Client = cassandra.Client;

/** How to reach Cassandra and which namespace (keyspace) to keep everything under. */
export interface CassandraOptions {
  contactPoints: string[];
  localDataCenter: string;
  /** The namespace: lowercase letters, digits and underscore, starting with a letter, at most 32 chars. */
  keyspace: string;
  /** SimpleStrategy replication factor of a keyspace created here; default 1. */
  replication?: number;
  log?: Logger;
}

const KEYSPACE = /^[a-z][a-z0-9_]{0,31}$/;
const CQL_DIR = new URL('../../cql/', import.meta.url);
const FILE = /^(\d{3})-([a-z0-9_-]+)\.cql$/;
/** A migration started by a process that died keeps its lock; say so instead of waiting forever. */
const LOCK_WAIT_MS = 120_000;

export function checkKeyspace(keyspace: string): void {
  if (!KEYSPACE.test(keyspace)) {
    throw new Error(
      `invalid namespace ${JSON.stringify(keyspace)}: lowercase letters, digits, _; starts with a letter`,
    );
  }
}

function newClient(opts: CassandraOptions, keyspace?: string): Client {
  const client = new Client({
    contactPoints: opts.contactPoints,
    localDataCenter: opts.localDataCenter,
    ...(keyspace ? { keyspace } : {}),
    encoding: { useBigIntAsLong: true },
    queryOptions: {
      consistency: types.consistencies.localQuorum,
      serialConsistency: types.consistencies.localSerial,
      prepare: true,
    },
  });
  const log = opts.log ?? silentLogger;
  client.on('log', (level: string, where: string, message: string) => {
    if (level === 'warning' || level === 'error') log.warn({ where }, `cassandra-driver: ${message}`);
  });
  return client;
}

/**
 * Connects to the namespace's keyspace, creating it and applying the pending
 * migrations first. Every adapter on Cassandra opens its session this way, so
 * whichever starts first brings the whole schema up to date.
 */
export async function openKeyspace(opts: CassandraOptions): Promise<Client> {
  checkKeyspace(opts.keyspace);
  const boot = newClient(opts);
  try {
    await boot.connect();
    const replication = opts.replication ?? 1;
    await ddl(
      boot,
      `CREATE KEYSPACE IF NOT EXISTS ${opts.keyspace} ` +
        `WITH replication = {'class': 'SimpleStrategy', 'replication_factor': ${replication}}`,
    );
  } finally {
    await boot.shutdown();
  }
  const client = newClient(opts, opts.keyspace);
  try {
    await client.connect();
    await migrate(client, opts.log ?? silentLogger);
  } catch (err) {
    await client.shutdown();
    throw err;
  }
  return client;
}

interface Migration {
  version: number;
  name: string;
  statements: string[];
}

export async function listMigrations(dir: URL = CQL_DIR): Promise<Migration[]> {
  const names = (await readdir(dir)).filter((n) => FILE.test(n)).sort();
  const out: Migration[] = [];
  for (const file of names) {
    const [, version, name] = FILE.exec(file)!;
    const text = await readFile(new URL(file, dir), 'utf8');
    // Plain `;` splitting: the CQL files hold no string literal containing `;` or `--`.
    const statements = text
      .split('\n')
      .map((line) => line.replace(/--.*$/, ''))
      .join('\n')
      .split(';')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    out.push({ version: Number(version), name: name!, statements });
  }
  return out;
}

/**
 * Applies every migration not yet recorded in `schema_migrations`, in order.
 * The lock is the row itself: `INSERT ... IF NOT EXISTS` (a Paxos round) lets
 * exactly one process apply a version; the others wait until its `applied_at`
 * is set. Statements are `IF NOT EXISTS`, so if a holder dies midway, deleting
 * its row lets the next start redo the migration safely.
 */
export async function migrate(client: Client, log: Logger = silentLogger): Promise<number[]> {
  await ddl(
    client,
    'CREATE TABLE IF NOT EXISTS schema_migrations (version int PRIMARY KEY, name text, applied_at timestamp)',
  );
  const applied: number[] = [];
  for (const m of await listMigrations()) {
    const state = await migrationState(client, m.version);
    if (state === 'applied') continue;
    const lock = await client.execute('INSERT INTO schema_migrations (version, name) VALUES (?, ?) IF NOT EXISTS', [
      m.version,
      m.name,
    ]);
    if (lock.first()!['[applied]'] !== true) {
      await waitApplied(client, m);
      continue;
    }
    for (const statement of m.statements) await ddl(client, statement);
    await client.execute('UPDATE schema_migrations SET applied_at = ? WHERE version = ? IF applied_at = null', [
      new Date(),
      m.version,
    ]);
    log.info({ keyspace: client.keyspace, version: m.version, name: m.name }, 'cassandra migration applied');
    applied.push(m.version);
  }
  return applied;
}

async function migrationState(client: Client, version: number): Promise<'absent' | 'running' | 'applied'> {
  // A serial read sees the lock of a Paxos round that is still being committed.
  const rs = await client.execute('SELECT applied_at FROM schema_migrations WHERE version = ?', [version], {
    consistency: types.consistencies.localSerial,
  });
  const row = rs.first();
  if (!row) return 'absent';
  return row['applied_at'] ? 'applied' : 'running';
}

async function waitApplied(client: Client, m: Migration): Promise<void> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  while ((await migrationState(client, m.version)) !== 'applied') {
    if (Date.now() > deadline) {
      throw new Error(
        `cassandra migration ${m.version} (${m.name}) in ${client.keyspace} was started by another process ` +
          `and not finished within ${LOCK_WAIT_MS} ms; if that process died, delete its schema_migrations row`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await waitForAgreement(client);
}

/** Runs a schema change and waits until every node has the new schema. */
async function ddl(client: Client, statement: string): Promise<void> {
  const rs = await client.execute(statement, [], { prepare: false });
  // The driver already waited (up to 10 s); its typings omit the flag it sets.
  if ((rs.info as { isSchemaInAgreement?: boolean }).isSchemaInAgreement === false) await waitForAgreement(client);
}

async function waitForAgreement(client: Client): Promise<void> {
  // Not in the driver's typings, but public API of its Metadata class.
  const metadata = client.metadata as unknown as { checkSchemaAgreement(): Promise<boolean> };
  const deadline = Date.now() + 60_000;
  while (!(await metadata.checkSchemaAgreement())) {
    if (Date.now() > deadline) throw new Error('cassandra nodes did not agree on the schema within 60 s');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
