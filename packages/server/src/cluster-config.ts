import { hostname } from 'node:os';

/** What a process does: everything in one process, or one part of a cluster. */
export type Role = 'embedded' | 'edge' | 'actor-host';

const ROLES: readonly Role[] = ['embedded', 'edge', 'actor-host'];

/** Where a cluster process finds the engines and its peers (all from the environment). */
export interface ClusterConfig {
  /** Prefixes NATS subjects and Kafka topics, and names the Cassandra keyspace. */
  namespace: string;
  natsUrl: string;
  kafkaBrokers: string[];
  cassandraContactPoints: string[];
  cassandraDatacenter: string;
  /** Replication factor of the keyspace and topics a cluster creates. */
  replication: number;
  /** Names an actor host in the lease table and its fan-out subject. */
  hostId: string;
  /** How long a shard lease lasts without renewal; a dead host's shards move after it. */
  leaseMs: number;
}

export function readRole(env: NodeJS.ProcessEnv = process.env): Role {
  const role = (env.CHAT_ROLE || 'embedded') as Role;
  if (!ROLES.includes(role)) throw new Error(`CHAT_ROLE must be one of ${ROLES.join(', ')}, got '${env.CHAT_ROLE}'`);
  return role;
}

const list = (raw: string | undefined) =>
  (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

function required(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name];
  if (!value) throw new Error(`${name} must be set for a cluster process (see docs/architecture.md, "Cluster")`);
  return value;
}

export function readClusterConfig(env: NodeJS.ProcessEnv = process.env): ClusterConfig {
  const namespace = env.CLUSTER_NAMESPACE || 'chat';
  if (!/^[a-z][a-z0-9_]{0,31}$/.test(namespace)) {
    throw new Error(`CLUSTER_NAMESPACE must be lowercase letters, digits and _ (at most 32), got '${namespace}'`);
  }
  const leaseMs = Number(env.LEASE_MS || 5000);
  if (!Number.isSafeInteger(leaseMs) || leaseMs < 500) throw new Error(`LEASE_MS must be an integer >= 500`);
  const replication = Number(env.CLUSTER_REPLICATION || 1);
  if (!Number.isSafeInteger(replication) || replication < 1) throw new Error('CLUSTER_REPLICATION must be >= 1');
  return {
    namespace,
    natsUrl: required(env, 'NATS_URL'),
    kafkaBrokers: list(required(env, 'KAFKA_BROKERS')),
    cassandraContactPoints: list(required(env, 'CASSANDRA_CONTACT_POINTS')),
    cassandraDatacenter: env.CASSANDRA_DATACENTER || 'datacenter1',
    replication,
    hostId: env.HOST_ID || `${hostname()}-${process.pid}`,
    leaseMs,
  };
}
