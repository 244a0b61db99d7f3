import anyTest, { type TestFn } from 'ava';
import { silentLogger, type ActorHost, type Logger } from '@chat/runtime';
import { LeaseTable, openKeyspace, ShardManager } from '../src/index.js';
import { cassandraOptions, Keyspaces, sleep } from './cassandra-support.js';

/** A host's shard leases against the real lease table while its event loop is kept busy, as under load. */

const test = anyTest as TestFn<{ keyspaces: Keyspaces }>;

test.before((t) => {
  t.context.keyspaces = new Keyspaces();
});
test.after.always(async (t) => {
  await t.context.keyspaces?.dropAll();
});

const LEASE_MS = 3000;
const SHARDS = 4;

/** Stands for an actor host: what the manager gave it and took from it. */
function fakeHost() {
  const changes: string[] = [];
  const host = {
    addShard: async (shard: number) => void changes.push(`took ${shard}`),
    removeShard: async (shard: number, lost = false) => void changes.push(`${lost ? 'lost' : 'handed off'} ${shard}`),
  } as unknown as ActorHost;
  return { host, changes };
}

/**
 * Keeps this thread busy for `ms` in turns of `turnMs` with one pass of the event loop between (a loop starved by
 * work, or by a machine whose other processes take the CPU), asking all along what a message taken then would ask:
 * whether the host may act for each of its shards. Returns how long it might not, in all and at most at once.
 */
async function busy(manager: ShardManager, shards: number[], ms: number, turnMs: number) {
  let lapsedMs = 0;
  let longestMs = 0;
  let since: number | undefined;
  const end = performance.now() + ms;
  while (performance.now() < end) {
    const turnEnd = Math.min(end, performance.now() + turnMs);
    while (performance.now() < turnEnd) {
      const now = performance.now();
      const valid = shards.every((shard) => manager.valid(shard));
      if (!valid) since ??= now;
      else if (since !== undefined) {
        lapsedMs += now - since;
        longestMs = Math.max(longestMs, now - since);
        since = undefined;
      }
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
  if (since !== undefined) {
    lapsedMs += performance.now() - since;
    longestMs = Math.max(longestMs, performance.now() - since);
  }
  return { lapsedMs: Math.round(lapsedMs), longestMs: Math.round(longestMs) };
}

test('a host whose event loop is busy in 1 s turns keeps its leases', async (t) => {
  const keyspace = t.context.keyspaces.name();
  const options = cassandraOptions(keyspace);
  const client = await openKeyspace(options);
  const { host, changes } = fakeHost();
  // The renewals the keeper found slow: how long each took to come back, on its own thread.
  const slow: number[] = [];
  const log: Logger = {
    ...silentLogger,
    warn: (obj: object) => void ('tookMs' in obj && slow.push(Math.round(obj.tookMs as number))),
    child: () => log,
  };
  const manager = new ShardManager({
    table: new LeaseTable(client),
    cassandra: options,
    host,
    hostId: 'h1',
    shardCount: SHARDS,
    leaseMs: LEASE_MS,
    log,
  });
  try {
    await manager.start();
    for (let i = 0; i < 100 && manager.shards.length < SHARDS; i++) await sleep(100);
    const shards = manager.shards;
    t.is(shards.length, SHARDS, 'the only host took every shard');
    const { lapsedMs, longestMs } = await busy(manager, shards, 12_000, 1000);
    t.log(
      `lease ${LEASE_MS} ms, loop busy 12 s in 1 s turns: the host might not act for a shard during ${lapsedMs} ms ` +
        `(longest ${longestMs} ms); shards lost: ${changes.filter((c) => c.startsWith('lost')).length}; ` +
        `renewals slower than a fifth of the lease: [${slow.join(', ')}] ms`,
    );
    // A lease lapses only when Cassandra itself answers a renewal later than the lease minus its margin and
    // one interval (1.8 s): the shared engines of a busy test run can. The loop alone never lets one lapse.
    if (!slow.some((ms) => ms > (LEASE_MS * 3) / 5)) t.is(lapsedMs, 0, 'no lease lapsed');
    t.deepEqual(
      changes.filter((c) => !c.startsWith('took')),
      [],
      'no shard was dropped',
    );
  } finally {
    await manager.stop(false);
    await client.shutdown();
  }
});

test('the free shards that belong to a host are all taken in its first round, side by side', async (t) => {
  const keyspace = t.context.keyspaces.name();
  const options = cassandraOptions(keyspace);
  const client = await openKeyspace(options);
  // A take reads the shard's journal: here each takes 200 ms, and the host notes how many run at once.
  let running = 0;
  let most = 0;
  const host = {
    addShard: async () => {
      most = Math.max(most, ++running);
      await sleep(200);
      running--;
    },
    removeShard: async () => undefined,
  } as unknown as ActorHost;
  const shardCount = 8;
  const manager = new ShardManager({
    table: new LeaseTable(client),
    cassandra: options,
    host,
    hostId: 'h1',
    shardCount,
    leaseMs: LEASE_MS,
    log: silentLogger,
  });
  try {
    await manager.start();
    t.is(manager.shards.length, shardCount, 'every free shard taken in the first round');
    t.is(most, shardCount, 'all taken at once');
  } finally {
    await manager.stop(false);
    await client.shutdown();
  }
});
