export { NatsTransport, type NatsTransportOptions } from './nats-transport.js';
export { KafkaJournal, type KafkaJournalOptions } from './kafka-journal.js';
export { CassandraStore, type CassandraStoreOptions } from './cassandra-store.js';
export { CassandraFileStore, type CassandraFileStoreOptions } from './cassandra-files.js';
export { checkKeyspace, migrate, openKeyspace, type CassandraOptions } from './migrations.js';
export { LeaseTable, type Lease } from './leases.js';
export { ShardManager, rendezvous, type HeldShard, type ShardManagerOptions } from './shard-manager.js';
export { ShardMap, announceShards, SHARD_MAP_SUBJECT, type Announcement } from './shard-map.js';
