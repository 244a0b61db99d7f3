import { join } from 'node:path';
import { ChannelTransport, LocalFileStore, type Channel } from '@chat/embedded';
import { createLogger, type RateLimitStore, type RateLimitStores } from '@chat/edge';
import { TransportActorClient } from '@chat/runtime';
import { loadConfig } from './config.js';
import type { RateLimitCall } from './edge-workers.js';
import { registerNodeMetrics, type NodeFigures } from './metrics.js';
import { EMBEDDED_HOST } from './node.js';
import { startServer, type Backend } from './server.js';

/**
 * An edge worker of the embedded server (`edge-workers.ts` starts it with
 * `EDGE_WORKERS`): the HTTP edge alone, its asks going over the IPC channel
 * to the process holding the actors, its uploads in the same folder.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger({ level: config.logLevel });
  const transport = new ChannelTransport(process as Channel, log);
  const actors = new TransportActorClient(transport, {
    shardCount: config.shardCount,
    defaultTimeoutMs: config.askTimeoutMs,
    ownerOf: () => EMBEDDED_HOST,
  });
  // The first process cleared the folder's unfinished uploads; other workers' may be under way.
  const files = await LocalFileStore.open(join(config.dataDir, 'uploads'), { clearTmp: false });
  const shared = (kind: keyof RateLimitStores): RateLimitStore => ({
    hit: (key, limit, windowMs) =>
      transport.call('rateLimitHit', { kind, key, limit, windowMs } satisfies RateLimitCall),
    reset: (key) => transport.call('rateLimitReset', { kind, key, limit: 0, windowMs: 0 } satisfies RateLimitCall),
  });
  // The first process says how late its loop runs, every LAG_EVERY_MS (edge-workers.ts).
  let actorLag = 0;
  process.on('message', (message: { t?: string; ms?: number }) => {
    if (message.t === 'lag') actorLag = message.ms ?? 0;
  });
  const backend: Backend = {
    actorLagMs: () => actorLag,
    actors,
    files,
    shared: true,
    ...(config.rateLimits && { rateLimitStores: { user: shared('user'), ip: shared('ip'), login: shared('login') } }),
    metrics: (registry) => registerNodeMetrics(registry, () => transport.call<NodeFigures>('figures', null)),
    async close() {
      await transport.close();
      await files.close();
    },
  };
  const server = await startServer(config, backend);
  let stopping = false;
  const stop = (code: number) => {
    if (stopping) return;
    stopping = true;
    server.close().then(
      () => process.exit(code),
      (err: unknown) => {
        log.error({ err }, 'edge worker did not stop cleanly');
        process.exit(1);
      },
    );
  };
  // The process holding the actors says when to stop (a Ctrl-C reaches every process of the group).
  process.on('message', (message: { t?: string }) => message.t === 'stop' && stop(0));
  process.on('SIGINT', () => {});
  process.on('SIGTERM', () => stop(0));
  // Without it (killed), there is nothing left to serve from: Node's cluster module ends a worker whose
  // channel closes unasked at once (exit code 0), which also frees the port for a restart.
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
