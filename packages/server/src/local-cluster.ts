import { randomBytes } from 'node:crypto';
import { CassandraStore, KafkaJournal, NatsRateLimits, rendezvous } from '@chat/cluster';
import { createLogger } from '@chat/edge';
import type { ClusterConfig } from './cluster-config.js';
import { connectEdgeBackend, startClusterHost, type ClusterHost } from './cluster-node.js';
import type { Config } from './config.js';
import { startServer, type RunningServer } from './server.js';

/** A whole cluster in this process over real engines: hosts and edges, each with its own connections. */
export interface LocalCluster {
  namespace: string;
  hosts: ClusterHost[];
  edges: RunningServer[];
  /** Every edge's URL; they all serve the same realms. */
  urls: string[];
  /** Stops the edges and hosts; `drop` also deletes the namespace's keyspace and topics. */
  close(drop?: boolean): Promise<void>;
}

export interface LocalClusterOptions {
  hosts?: number;
  edges?: number;
  /** How long to wait for the hosts to settle on their shares of the shards. */
  settleMs?: number;
}

/**
 * Starts `hosts` actor hosts, waits until every shard is held by its
 * rightful host, then starts `edges` edges (the first one creates the
 * development realm in development mode). Every edge answers as the first
 * one's URL, as edges behind one load balancer do, and they share the data
 * folder (resumable uploads keep their parts there).
 */
export async function startLocalCluster(
  config: Config,
  cluster: ClusterConfig,
  options: LocalClusterOptions = {},
): Promise<LocalCluster> {
  const log = createLogger({ level: config.logLevel });
  const ids = Array.from({ length: options.hosts ?? 3 }, (_, i) => `${cluster.namespace}-h${i + 1}`);
  const hosts = await Promise.all(ids.map((hostId) => startClusterHost(config, { ...cluster, hostId }, log)));
  const edges: RunningServer[] = [];
  // Any edge may be asked for a temporary upload URL another one signed.
  const temporaryUrlKey = config.temporaryUrlKey ?? randomBytes(32).toString('hex');
  const close = async (drop = true) => {
    for (const edge of edges.splice(0)) await edge.close();
    await Promise.all(hosts.map((host) => host.close()));
    if (drop) await dropNamespace(config, cluster);
  };
  try {
    await settle(hosts, ids, config.shardCount, options.settleMs ?? 60_000);
    for (let i = 0; i < (options.edges ?? 2); i++) {
      const externalUrl = edges[0]?.url ?? config.externalUrl;
      const edgeConfig: Config = { ...config, temporaryUrlKey, ...(externalUrl !== undefined && { externalUrl }) };
      edges.push(await startServer(edgeConfig, await connectEdgeBackend(edgeConfig, cluster, log)));
    }
  } catch (err) {
    await close().catch(() => undefined);
    throw err;
  }
  return { namespace: cluster.namespace, hosts, edges, urls: edges.map((edge) => edge.url), close };
}

async function settle(hosts: ClusterHost[], ids: string[], shardCount: number, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  const settled = () =>
    hosts.every((host, i) => {
      const wanted = Array.from({ length: shardCount }, (_, s) => s).filter((s) => rendezvous(s, ids) === ids[i]);
      return host.manager.shards.join() === wanted.join();
    });
  while (!settled()) {
    if (Date.now() > until) throw new Error(`the cluster's hosts did not settle on their shards in ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Deletes everything a cluster namespace holds in Kafka, Cassandra and NATS (its rate limit buckets). */
export async function dropNamespace(config: Config, cluster: ClusterConfig): Promise<void> {
  const journal = await KafkaJournal.open({
    brokers: cluster.kafkaBrokers,
    namespace: cluster.namespace,
    shardCount: config.shardCount,
  });
  await journal.deleteNamespace().finally(() => journal.close());
  const store = await CassandraStore.open({
    contactPoints: cluster.cassandraContactPoints,
    localDataCenter: cluster.cassandraDatacenter,
    keyspace: cluster.namespace,
  });
  await store.dropNamespace().finally(() => store.close());
  await NatsRateLimits.dropNamespace(cluster.natsUrl, cluster.namespace);
}
