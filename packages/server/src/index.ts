export { loadConfig, type Config, type Mode } from './config.js';
export { DEV_REALM, ensureDevRealm } from './dev-realm.js';
export { startEmbeddedNode, type EmbeddedNode } from './node.js';
export { startServer, type RunningServer } from './server.js';
