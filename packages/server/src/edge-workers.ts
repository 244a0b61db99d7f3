import cluster, { type Worker } from 'node:cluster';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { serveChannel, type ChannelCalls } from '@chat/embedded';
import { LagMonitor, MemoryRateLimitStore, type RateLimitStores } from '@chat/edge';
import type { Logger } from '@chat/runtime';
import type { Config } from './config.js';
import { ensureDevRealm } from './dev-realm.js';
import { nodeFigures } from './metrics.js';
import { startEmbeddedNode } from './node.js';
import type { RunningServer } from './server.js';

/** A worker that dies this many times within RESTART_WINDOW_MS stops the server instead of starting again. */
const MAX_RESTARTS = 5;
const RESTART_WINDOW_MS = 60_000;
/** How often the workers hear how late this process's loop runs (their admission counts it). */
const LAG_EVERY_MS = 100;
/** A worker told to stop that is still running after this long is killed. */
const STOP_GRACE_MS = 10_000;

/**
 * For a send to a worker whose channel closed (it is exiting, and is started again): Node hands the error
 * (EPIPE, ERR_IPC_CHANNEL_CLOSED) to a callback, or else emits it as an 'error' that ends this process.
 */
const dropped = () => {};

/** What an edge worker may ask of the process holding the actors, besides asks and tells. */
export interface RateLimitCall {
  kind: keyof RateLimitStores;
  key: string;
  limit: number;
  windowMs: number;
}

/**
 * The embedded server with its HTTP edge in `config.edgeWorkers` processes
 * (`edge-worker.ts`, the `cluster` module sharing the listening port) and
 * the actors in this one. Each worker's asks and tells come here over its
 * IPC channel and go on over the in-process transport; rate limits are
 * counted here, so they hold across workers, and the workers' admission
 * hears how late this process's loop runs. A worker that dies is started
 * again; one that keeps dying stops the server (`onFatal`).
 */
export async function startEdgeWorkers(
  config: Config,
  log: Logger,
  onFatal: (err: Error) => void,
): Promise<RunningServer> {
  const node = await startEmbeddedNode(config, log);
  if (config.mode === 'development') {
    const outcome = await ensureDevRealm(node.actors);
    log.info({ realm: 'zulip', outcome }, 'development realm ready');
  }
  const settings = config.rateLimits;
  const limits: RateLimitStores | undefined = settings && {
    user: new MemoryRateLimitStore(settings.maxKeys),
    ip: new MemoryRateLimitStore(settings.maxKeys),
    login: new MemoryRateLimitStore(settings.maxKeys),
  };
  const calls: ChannelCalls = {
    figures: () => nodeFigures(node),
    rateLimitHit: (c: RateLimitCall) => limits?.[c.kind].hit(c.key, c.limit, c.windowMs),
    rateLimitReset: (c: RateLimitCall) => limits?.[c.kind].reset(c.key),
  };
  // Each worker accepts from the shared listening socket itself. With Node's round-robin (this process
  // accepts and hands each connection over), a connection handed to a worker as it dies is never
  // answered; NODE_CLUSTER_SCHED_POLICY=rr still asks for it (to compare, bench/README.md).
  if (process.env.NODE_CLUSTER_SCHED_POLICY !== 'rr') cluster.schedulingPolicy = cluster.SCHED_NONE;
  cluster.setupPrimary({
    exec: fileURLToPath(new URL('./edge-worker.js', import.meta.url)),
    args: [],
    // Structured clone: an ask's JSON text crosses as a string, not JSON inside JSON.
    serialization: 'advanced',
  });

  let port = config.port;
  let started = false;
  let stopping = false;
  const restarts: number[] = [];
  const workers = new Set<Worker>();

  const fork = async (index: number): Promise<void> => {
    // With PORT=0, a worker started again after the last one died (the port closed with it) listens on
    // the port the first listen chose, not a new one.
    const env = { EDGE_WORKER_INDEX: String(index), ...(started && workers.size === 0 && { PORT: String(port) }) };
    const worker = cluster.fork(env);
    workers.add(worker);
    serveChannel(worker, node.ports.transport, calls, log.child({ worker: index }));
    worker.on('exit', (code, signal) => {
      workers.delete(worker);
      if (stopping || !started) return; // at startup, the wait for 'listening' fails instead
      const err = new Error(`edge worker ${index} (pid ${worker.process.pid}) exited (${signal ?? code})`);
      log.error({ err, worker: index }, 'edge worker died');
      const now = Date.now();
      restarts.push(now);
      while (restarts[0]! < now - RESTART_WINDOW_MS) restarts.shift();
      if (restarts.length >= MAX_RESTARTS) return onFatal(new Error(`${err.message}: ${MAX_RESTARTS} in a minute`));
      fork(index).catch(onFatal);
    });
    const [address] = (await Promise.race([
      once(worker, 'listening'),
      once(worker, 'exit').then(([code]) => {
        throw new Error(`edge worker ${index} exited (${String(code)}) before listening`);
      }),
    ])) as [AddressInfo];
    // With PORT=0 every worker gets the same port, the one the first listen chose.
    port = address.port;
  };

  try {
    for (let i = 0; i < config.edgeWorkers; i++) await fork(i);
    started = true;
  } catch (err) {
    stopping = true;
    for (const worker of workers) worker.kill();
    await node.close();
    throw err;
  }
  const lag = new LagMonitor();
  const tellLag = setInterval(() => {
    for (const worker of workers) if (worker.isConnected()) worker.send({ t: 'lag', ms: lag.lagMs }, dropped);
  }, LAG_EVERY_MS);
  log.info({ port, workers: config.edgeWorkers, dataDir: config.dataDir }, 'edge workers listening');
  return {
    url: `http://${config.bindHost}:${port}`,
    node,
    async close() {
      stopping = true;
      clearInterval(tellLag);
      lag.stop();
      await Promise.all(
        [...workers].map(async (worker) => {
          const exited = once(worker, 'exit');
          const timer = setTimeout(() => worker.kill('SIGKILL'), STOP_GRACE_MS);
          worker.send({ t: 'stop' }, dropped);
          await exited;
          clearTimeout(timer);
        }),
      );
      await node.close();
    },
  };
}
