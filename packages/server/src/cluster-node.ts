import {
  announceShards,
  CassandraFileStore,
  CassandraStore,
  KafkaJournal,
  LeaseTable,
  NatsTransport,
  ShardManager,
  ShardMap,
} from '@chat/cluster';
import { ActorHost, TransportActorClient, type Logger } from '@chat/runtime';
import { hostSettings } from './behaviors.js';
import type { ClusterConfig } from './cluster-config.js';
import { openSharedRateLimits } from './cluster-rate-limits.js';
import type { Config } from './config.js';
import type { Backend } from './server.js';

/** In a cluster the queue's host may die while a poll waits there: a poll asks again this often. */
const CLUSTER_POLL_SLICE_MS = 5_000;

/** Asks waiting for a shard to find its new owner, per process; more fail at once with OVERLOADED. */
const MAX_WAITING_ASKS = 1000;

function cassandraOptions(cluster: ClusterConfig, log: Logger) {
  return {
    contactPoints: cluster.cassandraContactPoints,
    localDataCenter: cluster.cassandraDatacenter,
    keyspace: cluster.namespace,
    replication: cluster.replication,
    log,
  };
}

/** The transport and the actor client every cluster process uses. */
async function connect(config: Config, cluster: ClusterConfig, name: string, log: Logger) {
  const transport = await NatsTransport.connect({ servers: cluster.natsUrl, namespace: cluster.namespace, name, log });
  // Hosts announce every fifth of a lease; an entry missed three times is stale.
  const shardMap = new ShardMap(transport, (cluster.leaseMs / 5) * 3);
  const actors = new TransportActorClient(transport, {
    shardCount: config.shardCount,
    defaultTimeoutMs: config.askTimeoutMs,
    ownerOf: (shard) => shardMap.ownerOf(shard),
    maxWaiting: MAX_WAITING_ASKS,
  });
  return { transport, shardMap, actors };
}

/** What an edge of a cluster serves from: actors over NATS, uploads in Cassandra. */
export async function connectEdgeBackend(config: Config, cluster: ClusterConfig, log: Logger): Promise<Backend> {
  const { transport, shardMap, actors } = await connect(config, cluster, `edge-${process.pid}`, log);
  const files = await CassandraFileStore.open(cassandraOptions(cluster, log));
  // Edges count rate limits together, or a client would get the limit at each edge.
  const limits = config.rateLimits && (await openSharedRateLimits(config.rateLimits, cluster, log));
  return {
    actors,
    files,
    shared: true,
    pollSliceMs: CLUSTER_POLL_SLICE_MS,
    ...(limits && { rateLimitStores: limits.stores }),
    async close() {
      shardMap.close();
      await transport.close();
      await files.close();
      await limits?.close();
    },
  };
}

export interface ClusterHost {
  host: ActorHost;
  manager: ShardManager;
  /** Leaves the cluster: hands every shard off (with `handOff` false, leaves them to expire), then disconnects. */
  close(handOff?: boolean): Promise<void>;
}

/** An actor host of a cluster: takes its share of the shards through leases and serves them. */
export async function startClusterHost(config: Config, cluster: ClusterConfig, log: Logger): Promise<ClusterHost> {
  const { transport, shardMap, actors } = await connect(config, cluster, cluster.hostId, log);
  const store = await CassandraStore.open(cassandraOptions(cluster, log));
  const journal = await KafkaJournal.open({
    brokers: cluster.kafkaBrokers,
    namespace: cluster.namespace,
    shardCount: config.shardCount,
    clientId: cluster.hostId,
    replicationFactor: cluster.replication,
    log,
  });
  const host = new ActorHost({
    transport,
    journal,
    store,
    actors,
    ...hostSettings(config),
    // The shard manager gives it shards as it takes their leases.
    shards: [],
    hostId: cluster.hostId,
    log,
  });
  await host.start();
  const manager = new ShardManager({
    table: new LeaseTable(store.client),
    cassandra: cassandraOptions(cluster, log),
    host,
    hostId: cluster.hostId,
    shardCount: config.shardCount,
    leaseMs: cluster.leaseMs,
    onRound: (shards) => announceShards(transport, cluster.hostId, shards),
    log,
  });
  await manager.start();
  return {
    host,
    manager,
    async close(handOff = true) {
      await manager.stop(handOff);
      await host.stop();
      shardMap.close();
      await transport.close();
      await journal.close();
      await store.close();
    },
  };
}
