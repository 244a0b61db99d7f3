#!/usr/bin/env node
import { spawn, fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { NatsTransport } from '@chat/cluster';
import { freePort } from './util.js';

/**
 * What a request/reply round trip over NATS costs in CPU (`NatsTransport`,
 * `cluster/src/nats-transport.ts`): `ASKS` (20,000) requests, `LANES` (50)
 * at a time, of an authentication-sized ask and reply, between this process
 * (the asker, an edge) and a child process (the responder, an actor host)
 * over a `nats-server` of its own on a free loopback port. Prints the CPU
 * per request of each side and of the server (user + system), and the load
 * average before and after: the machine is shared, say it with the figures.
 *
 *   node bench/dist/src/nats-ask.js      # ASKS=… LANES=… ROUNDS=… NATS_SERVER_BIN=…
 */
const ASKS = Number(process.env.ASKS ?? 20_000);
const LANES = Number(process.env.LANES ?? 50);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const SUBJECT = 'actor.realm.0';
const checks = Array.from({ length: 4 }, (_, i) => ({ email: `user${i}@example.com`, key: 'x'.repeat(32) }));
const ASK = new TextEncoder().encode(
  JSON.stringify({ v: 1, to: { type: 'realm', key: 'zulip' }, body: { type: 'realm.authenticateMany', checks } }),
);
const principals = checks.map((c, i) => ({ realm: 'zulip', user_id: i, email: c.email, role: 400, groups: [1, 2, 3] }));
const REPLY = new TextEncoder().encode(JSON.stringify({ v: 1, ok: true, value: { principals } }));

const cpuUs = (since?: NodeJS.CpuUsage) => {
  const c = process.cpuUsage(since);
  return c.user + c.system;
};

/** A process's CPU so far in µs, from `/proc/<pid>/stat` (clock ticks of 10 ms). */
const procCpuUs = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
};

async function startNats(port: number): Promise<ChildProcess> {
  const bin = process.env.NATS_SERVER_BIN ?? 'nats-server';
  const child = spawn(bin, ['-a', '127.0.0.1', '-p', String(port)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`nats-server exited with ${code}: ${log}`)));
    child.stderr!.on('data', (chunk: Buffer) => {
      log += chunk.toString();
      if (log.includes('Server is ready')) resolve();
    });
  });
  child.removeAllListeners('exit');
  return child;
}

async function asks(transport: NatsTransport, count: number): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < count) {
      next++;
      await transport.request(SUBJECT, ASK, 30_000);
    }
  };
  await Promise.all(Array.from({ length: LANES }, lane));
}

/** The responder: answers every ask at once; reports its CPU since the last `mark`. */
async function responder(url: string, namespace: string): Promise<void> {
  const transport = await NatsTransport.connect({ servers: url, namespace });
  transport.subscribe(SUBJECT, (msg) => msg.respond?.(REPLY));
  await transport.flush();
  let mark = process.cpuUsage();
  process.on('message', (m: string) => {
    if (m === 'mark') ((mark = process.cpuUsage()), process.send!({ cpu: 0 }));
    if (m === 'cpu') process.send!({ cpu: cpuUs(mark) });
    if (m === 'stop') void transport.close().then(() => process.exit(0));
  });
  process.send!('ready');
}

function ask<T>(child: ChildProcess, message: string): Promise<T> {
  return new Promise((resolve) => {
    child.once('message', (m) => resolve(m as T));
    child.send(message);
  });
}

if (process.argv[2] === 'responder') {
  await responder(process.argv[3]!, process.argv[4]!);
} else {
  const port = await freePort();
  const url = `nats://127.0.0.1:${port}`;
  const namespace = 'natsask';
  const nats = await startNats(port);
  const child = fork(fileURLToPath(import.meta.url), ['responder', url, namespace]);
  try {
    await new Promise<void>((resolve) => child.once('message', () => resolve()));
    const transport = await NatsTransport.connect({ servers: url, namespace });
    await asks(transport, 2_000); // warm-up: JIT, buffers
    const rounds = [];
    for (let round = 0; round < ROUNDS; round++) {
      const load = loadavg()[0]!;
      await ask(child, 'mark');
      await transport.flush();
      const server0 = procCpuUs(nats.pid!);
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      await asks(transport, ASKS);
      const ms = performance.now() - t0;
      const asker = cpuUs(c0);
      const { cpu: answerer } = await ask<{ cpu: number }>(child, 'cpu');
      const server = procCpuUs(nats.pid!) - server0;
      rounds.push({
        asker_us: +(asker / ASKS).toFixed(2),
        responder_us: +(answerer / ASKS).toFixed(2),
        server_us: +(server / ASKS).toFixed(2),
        asks_per_s: Math.round(ASKS / (ms / 1000)),
        load_1m: +load.toFixed(2),
      });
    }
    await transport.close();
    console.log(JSON.stringify({ asks: ASKS, lanes: LANES, rounds }, null, 1));
  } finally {
    child.send('stop');
    await new Promise((r) => setTimeout(r, 300));
    if (child.exitCode === null) child.kill();
    nats.kill();
  }
}
