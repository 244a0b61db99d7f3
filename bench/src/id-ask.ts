#!/usr/bin/env node
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  loadConfig,
  readClusterConfig,
  startLocalCluster,
  startServer,
  type Config,
  type RunningServer,
} from '@chat/server';
import { ID_BLOCK } from '@chat/realm-actor';
import { ChatClient } from '@chat/testkit';
import { pick, ratio, Latency } from './stats.js';

/**
 * What the realm's message id costs a send (issue 18 line 3): each channel or
 * direct send asks its realm `realm.nextMessageId` while it decides. In this
 * process, over a fresh development realm, one at a time: `--asks` asks of
 * that command from the edge's actor client (embedded: in-process; cluster:
 * a NATS request to the realm's host, as a conversation on another host
 * makes it), then `--sends` `POST /messages` to Verona over loopback HTTP.
 * Latency of each, and CPU of this process per operation (it holds the
 * edge and, on the cluster target, the three actor hosts, so a send's CPU is
 * the whole server's plus the HTTP client's). The share is ask / send.
 *
 *   node bench/dist/src/id-ask.js --target embedded|cluster [--asks 2000] [--sends 500]
 */
async function main(argv: string[]): Promise<void> {
  const arg = (name: string, fallback: string) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1]! : fallback;
  };
  const target = arg('target', 'embedded');
  if (target !== 'embedded' && target !== 'cluster') throw new Error('--target is embedded or cluster');
  const asks = Number(arg('asks', '2000'));
  const sends = Number(arg('sends', '500'));
  const dir = await mkdtemp(join(tmpdir(), 'bench-id-ask-'));
  const config: Config = loadConfig({ LOG_LEVEL: 'warn' }, { port: 0, dataDir: dir, rateLimits: undefined });
  const server = await start(target, config);
  try {
    const iago = await login(server.url);
    // The realm's address, as @chat/protocol's realmAddress('zulip') makes it.
    const realm = { type: 'realm' as const, key: 'zulip' };
    const ask = () => server.node.actors.ask(realm, { type: 'realm.nextMessageId', floor: 0 });
    const send = async () => {
      const reply = await iago.post('/messages', { type: 'stream', to: 'Verona', topic: 'id ask', content: 'x' });
      if (reply.status !== 200) throw new Error(`send refused: ${JSON.stringify(reply.body)}`);
    };
    // A fresh realm's first id is 1 and each reservation covers ID_BLOCK ids, so the asks that
    // journal a reservation before answering are those of ids 1, ID_BLOCK + 1, 2 * ID_BLOCK + 1, …
    const reserving = new Latency();
    const fromMemory = new Latency();
    const idAsk = await measure(asks, ask, (id, ms) => (id % ID_BLOCK === 1 ? reserving : fromMemory).recordMs(ms));
    const sent = await measure(sends, send);
    const result = {
      scenario: 'id-ask',
      target,
      at: new Date().toISOString(),
      load_average: loadavg().map((n) => Math.round(n * 100) / 100),
      id_ask: { ...pick(idAsk.latency.summary()), cpu_us: idAsk.cpuUs, count: asks },
      id_ask_reserving: { ...pick(reserving.summary()), count: reserving.count },
      id_ask_from_memory: { ...pick(fromMemory.summary()), count: fromMemory.count },
      send: { ...pick(sent.latency.summary()), cpu_us: sent.cpuUs, count: sends },
      share_of_send: {
        p50: ratio(idAsk.latency.summary().p50, sent.latency.summary().p50),
        p99: ratio(idAsk.latency.summary().p99, sent.latency.summary().p99),
        cpu: ratio(idAsk.cpuUs, sent.cpuUs),
      },
    };
    const stamp = result.at.replace(/:/g, '-').replace(/\.\d+Z$/, 'Z');
    const out = join('bench', 'results', `id-ask-${target}-${stamp}.json`);
    await mkdir(join('bench', 'results'), { recursive: true });
    await writeFile(out, `${JSON.stringify(result, null, 2)}\n`);
    console.log(JSON.stringify(result, null, 2));
    console.error(`written to ${out}`);
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
}

async function start(target: 'embedded' | 'cluster', config: Config): Promise<RunningServer> {
  if (target === 'embedded') return startServer(config);
  const namespace = `bench_ids_${Date.now().toString(36)}`;
  const local = await startLocalCluster(config, readClusterConfig({ ...process.env, CLUSTER_NAMESPACE: namespace }), {
    edges: 1,
  });
  return { url: local.urls[0]!, node: local.edges[0]!.node, close: () => local.close(true) };
}

async function login(url: string): Promise<ChatClient> {
  const client = new ChatClient(url);
  const grant = await client.post<{ api_key: string }>('/dev_fetch_api_key', { username: 'iago@zulip.com' });
  return client.as({ email: 'iago@zulip.com', apiKey: grant.body.api_key });
}

/** `n` runs one at a time after a tenth as many to warm up: latency, and this process's CPU per run (µs). */
async function measure<T>(
  n: number,
  run: () => Promise<T>,
  each?: (answer: T, ms: number) => void,
): Promise<{ latency: Latency; cpuUs: number }> {
  for (let i = 0; i < Math.ceil(n / 10); i++) await run();
  const latency = new Latency();
  const cpu = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    const answer = await run();
    const ms = performance.now() - start;
    latency.recordMs(ms);
    each?.(answer, ms);
  }
  const used = process.cpuUsage(cpu);
  return { latency, cpuUs: Math.round((used.user + used.system) / n) };
}

main(process.argv.slice(2)).then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
