export { ChatClient, type Credentials, type Params, type Reply } from './client.js';
export { ServerProcess } from './process.js';
export { waitFor } from './wait.js';
export { assertEvents, assertResponse, checkEvent, checkResponse, type SchemaCheck } from './schema/check.js';
export { fuzzCases, type FuzzCase, type FuzzOptions, type FuzzRequest } from './fuzz.js';
export { envelopeProblem, runPool, sendFuzz, type FuzzAnswer, type FuzzSession } from './fuzz-run.js';
export { nextEdge, spreadOver } from './edges.js';
export { registerKeys, schemaProperties, type RegisterKey } from './schema/register-keys.js';
