import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createUsersInBulk } from './bulk.js';
import type { Options } from './config/args.js';
import { Http } from './http.js';
import { sampleProcesses } from './proc.js';
import type { Progress } from './progress.js';
import { adminCredentials, subscribeAll, type RealmShape } from './setup.js';
import { stillWanted, type Cleanups, type Target } from './target.js';
import { freePort } from './util.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/**
 * A cluster of processes on loopback, started for this run by
 * `scripts/cluster.sh up` (actor hosts, then edges) over the engines of
 * infra/ (started if they are not running, and left running: others may
 * use them). It has a namespace of its own (NATS subjects, Kafka topics, a
 * Cassandra keyspace), dropped at the end with the processes, also on
 * Ctrl-C. Nothing is cached: the accounts come from the `create-users`
 * admin command asking the running cluster, so a realm takes seconds.
 */
export async function openCluster(
  options: Options,
  shape: RealmShape,
  progress: Progress,
  cleanups: Cleanups,
): Promise<Target> {
  const began = Date.now();
  const dir = await mkdtemp(join(tmpdir(), 'bench-cluster-'));
  const namespace = `bench_${randomBytes(5).toString('hex')}`;
  const ports = await Promise.all(Array.from({ length: options.edges }, freePort));
  const env: NodeJS.ProcessEnv = {
    CLUSTER_DIR: dir,
    CLUSTER_NAMESPACE: namespace,
    EDGE_PORTS: ports.join(','),
    ACTOR_HOSTS: String(options.actorHosts),
    SHARD_COUNT: process.env.SHARD_COUNT ?? '16',
    CHAT_MODE: 'development',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    RATE_LIMITING: process.env.RATE_LIMITING ?? 'false',
    // Never stop the engines: they are shared.
    KEEP_ENGINES: '1',
    // Node flags for every edge and actor host, as for the embedded server (e.g. --cpu-prof).
    CLUSTER_NODE_FLAGS: process.env.BENCH_SERVER_FLAGS ?? '',
  };
  let http: Http | undefined;
  // Interrupted while `cluster.sh up` runs: it is ended first, so that `down` sees every process it started.
  const starting = new AbortController();
  let up: Promise<unknown> | undefined;
  let stopping: Promise<void> | undefined;
  const cleanup = () => (stopping ??= stopCluster());
  const stopCluster = async () => {
    cleanups.delete(cleanup);
    http?.close();
    starting.abort();
    await up?.catch(() => undefined);
    await script(['scripts/cluster.sh', 'down'], env, progress).catch((err: Error) => progress.log(err.message));
    if (up && env.KAFKA_BROKERS) {
      await dropNamespace(env).catch((err: Error) =>
        progress.log(`namespace ${namespace} not dropped: ${err.message}`),
      );
    }
    await rm(dir, { recursive: true, force: true });
  };
  cleanups.add(cleanup);
  try {
    progress.log('engines: infra/up.sh (starts NATS, Kafka and Cassandra only if they are not running)…');
    Object.assign(env, envLines(await script(['infra/up.sh'], {}, progress, starting.signal)));
    stillWanted(cleanups, cleanup);
    progress.log(`cluster ${namespace}: ${options.actorHosts} actor hosts, edges on ${ports.join(', ')}…`);
    up = script(['scripts/cluster.sh', 'up'], env, progress, starting.signal);
    await up;
    const processes = await clusterProcesses(dir);
    const urls = ports.map((port) => `http://127.0.0.1:${port}`);
    http = new Http(urls);
    const admin = await adminCredentials(http, options.adminEmail, options.adminKey);
    const bulkEnv = { ...env, CHAT_ROLE: 'edge', DATA_DIR: join(dir, 'admin-data') };
    const users = await createUsersInBulk(bulkEnv, shape.users, progress);
    const concurrency = options.setupConcurrency;
    const manifest = await subscribeAll(http, shape, admin, users, concurrency, progress, 'create-users');
    const client = http;
    return {
      kind: 'cluster',
      url: urls[0]!,
      http: client,
      manifest,
      setup: { fromCache: false, seconds: Math.round((Date.now() - began) / 100) / 10 },
      pid: undefined,
      sample: () => sampleProcesses(processes),
      stop: cleanup,
    };
  } catch (err) {
    // The folder goes with the cluster: show what its processes said first (unless it was stopped on purpose).
    if (!stopping) await logTails(dir, progress);
    await cleanup();
    throw err;
  }
}

async function logTails(dir: string, progress: Progress): Promise<void> {
  for (const file of (await readdir(dir).catch(() => [])).filter((f) => f.endsWith('.log'))) {
    const text = await readFile(join(dir, file), 'utf8').catch(() => '');
    const tail = text.trimEnd().split('\n').slice(-15).join('\n');
    if (tail) progress.log(`--- ${file} (last lines) ---\n${tail}`);
  }
}

/** The edges and actor hosts cluster.sh started, from its pid files (`edge-9991.pid`, `actor-host-1.pid`). */
async function clusterProcesses(dir: string): Promise<Array<{ name: string; pid: number }>> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.pid')).sort();
  return Promise.all(
    files.map(async (f) => ({ name: f.slice(0, -4), pid: Number((await readFile(join(dir, f), 'utf8')).trim()) })),
  );
}

/** Runs a script of the repository; `cluster:` lines go to the progress log, the rest is kept for a failure. */
function script(args: string[], env: NodeJS.ProcessEnv, progress: Progress, signal?: AbortSignal): Promise<string> {
  const child = spawn('bash', args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(signal ? { signal } : {}),
  });
  let out = '';
  let tail = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => {
    tail = (tail + chunk.toString()).slice(-4000);
    for (const line of chunk.toString().split('\n')) if (line.startsWith('cluster: ')) progress.log(line);
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      if (code === 0) resolve(out);
      else reject(new Error(`${args.join(' ')} failed (${code}):\n${tail}`));
    });
  });
}

/** `NAME=value` lines (what infra/up.sh prints) as an environment. */
function envLines(text: string): NodeJS.ProcessEnv {
  return Object.fromEntries(
    text
      .split('\n')
      .map((line) => /^([A-Z_]+)=(.*)$/.exec(line.trim()))
      .flatMap((m) => (m ? [[m[1]!, m[2]!]] : [])),
  );
}

/** Deletes the run's Kafka topics and Cassandra keyspace; loaded only here, the server's code is large. */
async function dropNamespace(env: NodeJS.ProcessEnv): Promise<void> {
  const server = await import('@chat/server');
  const full = { ...process.env, ...env };
  await server.dropNamespace(server.loadConfig(full), server.readClusterConfig(full));
}
