#!/usr/bin/env node
import { fork, type ChildProcess } from 'node:child_process';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { ChannelTransport, InProcessTransport, serveChannel, type Channel } from '@chat/embedded';
import { fromWire, toWire, type Transport } from '@chat/runtime';
import { sleep } from './util.js';

/**
 * What an edge worker's ask costs over its IPC channel (`EDGE_WORKERS`,
 * `embedded/src/channel-transport.ts`) against the same ask in one process:
 * `ASKS` (20,000) asks, `LANES` (50) at a time, of an authentication-sized
 * ask and reply, answered at once by a subscriber on the in-process
 * transport. CPU per ask of each process (user + system). With `PACE_MS`,
 * each lane waits that long after each answer, so that every ask finds the
 * other process asleep (what a trickle of requests does), and the one
 * process's figure counts the same wake of its own.
 *
 *   node bench/dist/src/ipc-ask.js
 *   LANES=1 PACE_MS=2 ASKS=2000 node bench/dist/src/ipc-ask.js
 */
const ASKS = Number(process.env.ASKS ?? 20_000);
const LANES = Number(process.env.LANES ?? 50);
const PACE_MS = Number(process.env.PACE_MS ?? 0);
const checks = Array.from({ length: 4 }, (_, i) => ({ email: `user${i}@example.com`, key: 'x'.repeat(32) }));
const ASK = { v: 1, to: { type: 'realm', key: 'zulip' }, body: { type: 'realm.authenticateMany', checks } };
const principals = checks.map((c, i) => ({ realm: 'zulip', user_id: i, email: c.email, role: 400, groups: [1, 2, 3] }));
const REPLY = { v: 1, ok: true, value: { principals } };

const cpuUs = (since: NodeJS.CpuUsage) => {
  const c = process.cpuUsage(since);
  return c.user + c.system;
};

/** Runs the asks over `transport`; the CPU of this process, in µs, and the wall time in ms. */
async function asks(transport: Transport): Promise<{ cpu: number; ms: number }> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  let next = 0;
  const lane = async () => {
    while (next < ASKS) {
      next++;
      fromWire(await transport.request('actor.realm.0', toWire(transport, ASK), 10_000));
      if (PACE_MS > 0) await sleep(PACE_MS);
    }
  };
  await Promise.all(Array.from({ length: LANES }, lane));
  return { cpu: cpuUs(c0), ms: performance.now() - t0 };
}

if (process.argv[2] === 'worker') {
  const result = await asks(new ChannelTransport(process as Channel));
  process.send!({ done: result });
  setTimeout(() => process.exit(0), 100);
} else {
  const inside = new InProcessTransport();
  inside.subscribe('actor.realm.0', (msg) => {
    fromWire(msg.data);
    msg.respond?.(toWire(inside, REPLY));
  });
  const one = await asks(inside);
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), ['worker'], { serialization: 'advanced' });
  serveChannel(child as Channel, inside);
  const c0 = process.cpuUsage();
  const worker = await new Promise<{ cpu: number; ms: number }>((resolve) =>
    child.on('message', (m: { done?: { cpu: number; ms: number } }) => m.done && resolve(m.done)),
  );
  const first = cpuUs(c0);
  const per = (us: number) => `${(us / ASKS).toFixed(1)} µs`;
  console.log(
    JSON.stringify({
      asks: ASKS,
      lanes: LANES,
      pace_ms: PACE_MS,
      ask_bytes: JSON.stringify(ASK).length,
      reply_bytes: JSON.stringify(REPLY).length,
      one_process_cpu_per_ask: per(one.cpu),
      one_process_asks_per_s: Math.round((ASKS / one.ms) * 1000),
      ipc_worker_cpu_per_ask: per(worker.cpu),
      ipc_first_process_cpu_per_ask: per(first),
      ipc_asks_per_s: Math.round((ASKS / worker.ms) * 1000),
      load_average: loadavg().map((x) => Number(x.toFixed(1))),
    }),
  );
}
