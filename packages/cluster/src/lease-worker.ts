import { parentPort, workerData } from 'node:worker_threads';
import cassandra from 'cassandra-driver';
import { LeaseTable } from './leases.js';
import type { KeeperData, KeeperMessage, KeeperReport } from './lease-keeper.js';

/**
 * The lease keeper's thread (`LeaseKeeper`): renews each held lease every
 * fifth of the lease over its own Cassandra session, and writes how long the
 * host may act for the shard into the memory it shares with the host's thread.
 */

const data = workerData as KeeperData;
const port = parentPort!;
const until = new BigInt64Array(data.until);
const client = new cassandra.Client({
  ...data.cassandra,
  encoding: { useBigIntAsLong: true },
  queryOptions: { prepare: true },
});
const table = new LeaseTable(client);
const interval = Math.max(100, Math.floor(data.leaseMs / 5));
/** A renewal lets the host act for the lease from the renewal's start, minus a fifth (the other hosts' clocks). */
const validNs = BigInt(data.leaseMs - Math.floor(data.leaseMs / 5)) * 1_000_000n;

interface Held {
  epoch: number;
  renewing?: Promise<void>;
}
const held = new Map<number, Held>();
const report = (message: KeeperReport) => port.postMessage(message);

setInterval(() => {
  for (const [shard, lease] of held) lease.renewing ??= renew(shard, lease).finally(() => (lease.renewing = undefined));
}, interval);

async function renew(shard: number, lease: Held): Promise<void> {
  const started = process.hrtime.bigint();
  let ours: boolean;
  try {
    ours = await table.renew(shard, data.hostId, lease.epoch, data.leaseMs);
  } catch (err) {
    // Unknown outcome: the host acts only until the lease it knows of runs out.
    report({ failed: shard, error: String(err) });
    if (held.get(shard) === lease && process.hrtime.bigint() >= Atomics.load(until, shard)) lose(shard, lease);
    return;
  }
  if (held.get(shard) !== lease) return;
  if (!ours) return lose(shard, lease);
  const next = started + validNs;
  const lapsedMs = Number(process.hrtime.bigint() - Atomics.load(until, shard)) / 1e6;
  if (next > Atomics.load(until, shard)) Atomics.store(until, shard, next);
  const tookMs = Number(process.hrtime.bigint() - started) / 1e6;
  if (tookMs > interval || lapsedMs > 0) report({ slow: shard, tookMs, lapsedMs });
}

function lose(shard: number, lease: Held): void {
  held.delete(shard);
  Atomics.store(until, shard, 0n);
  report({ lost: shard, epoch: lease.epoch });
}

// Connected before the first lease is held, so that no renewal waits for the session (seconds under load).
client.connect().then(
  () => report({ ready: true }),
  (err: unknown) => report({ ready: false, error: String(err) }),
);

port.on('message', (message: KeeperMessage) => {
  if ('hold' in message) held.set(message.hold, { epoch: message.epoch });
  else {
    // No renewal starts after this; the one under way ends first, so the release the host sends next comes after it.
    const lease = held.get(message.forget);
    held.delete(message.forget);
    void (lease?.renewing ?? Promise.resolve()).then(() => report({ forgotten: message.forget, ack: message.ack }));
  }
});
