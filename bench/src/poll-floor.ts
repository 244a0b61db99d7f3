import { fork, type ChildProcess } from 'node:child_process';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Http } from './http.js';
import { sampleProcess } from './proc.js';

/**
 * The floor of delivering an event by long poll on this machine: what a bare
 * `node:http` server and a bare Koa one (poll-floor-server.ts) spend per
 * round trip (a held poll answered with a small JSON reply, the client's
 * next poll read and held again, keep-alive), driven by the harness's own
 * client (`Http`). `--clients` polls are released together `--rounds`
 * times, as a fan-out does; the server's CPU over the rounds divided by the
 * round trips is the figure. Usage:
 *
 *   node bench/dist/src/poll-floor.js [--clients 10000] [--rounds 20] [--server http|koa|both]
 */
const SERVER_MAIN = fileURLToPath(new URL('./poll-floor-server.js', import.meta.url));

const { values } = parseArgs({
  options: {
    clients: { type: 'string', default: '10000' },
    rounds: { type: 'string', default: '20' },
    server: { type: 'string', default: 'both' },
  },
});
const clients = Number(values.clients);
const rounds = Number(values.rounds);
const WARMUP = 3;

function next<T>(child: ChildProcess, key: string): Promise<T> {
  return new Promise((resolve) => {
    const on = (m: Record<string, unknown>) => {
      if (m[key] === undefined) return;
      child.off('message', on);
      resolve(m[key] as T);
    };
    child.on('message', on);
  });
}

async function measure(kind: string) {
  const child = fork(SERVER_MAIN, [kind, String(clients)], { stdio: 'inherit' });
  const port = await next<number>(child, 'port');
  const http = new Http(`http://127.0.0.1:${port}`);
  let running = true;
  let failed = 0;
  const poll = async (i: number) => {
    const credentials = { email: `user${i}@example.com`, apiKey: 'floor-key-0123456789abcdef' };
    for (let last = -1; running; last++) {
      const answer = await http.request('GET', '/events', { queue_id: 'floor', last_event_id: last }, credentials);
      // A refused connection (a full accept backlog while ten thousand connect) is tried again, as clients do.
      if (answer.status !== 200 && running) {
        failed++;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  };
  let held = next(child, 'held');
  const loops = Array.from({ length: clients }, (_, i) => poll(i));
  let start = sampleProcess(child.pid)!;
  let harnessStart = process.cpuUsage();
  let wall = performance.now();
  for (let round = 0; round < WARMUP + rounds; round++) {
    await held;
    if (round === WARMUP) {
      start = sampleProcess(child.pid)!;
      harnessStart = process.cpuUsage();
      wall = performance.now();
    }
    held = next(child, 'held');
    child.send({ release: true });
  }
  await held;
  const end = sampleProcess(child.pid)!;
  wall = performance.now() - wall;
  const harness = process.cpuUsage(harnessStart);
  running = false;
  child.kill('SIGTERM');
  http.close();
  await Promise.allSettled(loops);
  const trips = clients * rounds;
  return {
    server: kind,
    clients,
    rounds,
    server_cpu_us_per_round_trip: Math.round(((end.cpuSeconds - start.cpuSeconds) * 1e6 * 10) / trips) / 10,
    round_ms: Math.round(wall / rounds),
    failed_polls: failed,
    harness_cpu_us_per_round_trip: Math.round(((harness.user + harness.system) * 10) / trips) / 10,
  };
}

const kinds = values.server === 'both' ? ['http', 'koa'] : [values.server!];
const loadBefore = loadavg().map((n) => Math.round(n * 10) / 10);
for (const kind of kinds) console.log(JSON.stringify({ ...(await measure(kind)), load_average: loadBefore }));
console.log(JSON.stringify({ load_average_after: loadavg().map((n) => Math.round(n * 10) / 10) }));
