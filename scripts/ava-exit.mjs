// Loaded into every ava worker (package.json "ava.require"). AVA waits for a
// worker's open handles after its tests are done; a client of NATS, Kafka or
// Cassandra that a failing or interrupted test left open would then keep the
// whole run waiting with every test passed. End the worker instead.
import { registerCompletionHandler } from 'ava';

registerCompletionHandler(() => {
  process.exit();
});
