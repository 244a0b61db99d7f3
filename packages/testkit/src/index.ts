export { ChatClient, type Credentials, type Params, type Reply } from './client.js';
export { ServerProcess } from './process.js';
export { waitFor } from './wait.js';
export { assertEvents, assertResponse, checkEvent, checkResponse, type SchemaCheck } from './schema/check.js';
export { nextEdge, spreadOver } from './edges.js';
