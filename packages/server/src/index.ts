export { loadConfig, type Config, type Mode } from './config.js';
export { DEV_REALM, ensureDevRealm } from './dev-realm.js';
export { startEmbeddedNode, type EmbeddedNode } from './node.js';
export { startServer, type RunningServer } from './server.js';
export { readClusterConfig, readRole, type ClusterConfig, type Role } from './cluster-config.js';
export { startClusterHost, connectEdgeBackend, type ClusterHost } from './cluster-node.js';
export { startLocalCluster, dropNamespace, type LocalCluster } from './local-cluster.js';
