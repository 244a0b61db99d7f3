// A member's register and GET /streams in a realm of many private channels he is not subscribed to
// (one in ten names his group in can_subscribe_group): how long each takes, p50 and p90.
//
//   node bench/private-register.mjs [--channels 300] [--runs 40] [--root .]
//
// Starts an embedded development server of `--root` (default: this checkout) on a free port with a data
// folder of its own, builds the realm through the API, measures, and stops the server by its pid.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    channels: { type: 'string', default: '300' },
    runs: { type: 'string', default: '40' },
    root: { type: 'string', default: '.' },
  },
});
const CHANNELS = Number(values.channels);
const RUNS = Number(values.runs);
const ROOT = resolve(values.root);

const freePort = () =>
  new Promise((done) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => done(port));
    });
  });

const port = await freePort();
const base = `http://127.0.0.1:${port}/api/v1`;
const dataDir = await mkdtemp(join(tmpdir(), 'private-register-'));
const server = spawn(process.execPath, [join(ROOT, 'packages/server/dist/src/main.js'), 'start'], {
  env: {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: String(port),
    CHAT_MODE: 'development',
    CHAT_ROLE: 'embedded',
    LOG_LEVEL: 'warn',
    RATE_LIMITING: 'false',
  },
  stdio: ['ignore', 'ignore', 'inherit'],
});

async function call(method, path, auth, params = {}, retries = 30) {
  const body = new URLSearchParams(
    Object.entries(params).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
  );
  const headers = auth ? { authorization: `Basic ${Buffer.from(`${auth.email}:${auth.key}`).toString('base64')}` } : {};
  const url = method === 'GET' ? `${base}${path}?${body}` : `${base}${path}`;
  const reply = await fetch(url, { method, headers, ...(method === 'GET' ? {} : { body }) });
  const json = await reply.json();
  // Admission may refuse the setup's bursts: wait as asked.
  if (reply.status === 503 && retries > 0) {
    await new Promise((r) => setTimeout(r, 1000 * Number(reply.headers.get('retry-after') ?? 1)));
    return call(method, path, auth, params, retries - 1);
  }
  if (reply.status !== 200) throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(json)}`);
  return json;
}

const percentile = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

/** CPU seconds of the server and its processes (edge workers), from /proc. */
function serverCpu() {
  const stats = new Map();
  for (const name of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const text = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
      stats.set(Number(name), { ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) });
    } catch {
      // gone meanwhile
    }
  }
  const tree = new Set([server.pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, s] of stats) if (!tree.has(pid) && tree.has(s.ppid)) grew = tree.add(pid) !== undefined;
  }
  return [...tree].reduce((sum, pid) => sum + (stats.get(pid)?.ticks ?? 0), 0) / 100;
}

/** Latency p50/p90 of `what` (alone: `after` runs untimed), and the server's CPU per run. */
async function timed(runs, what, after = async () => {}) {
  const ms = [];
  let cpu = 0;
  for (let i = 0; i < runs; i++) {
    const before = serverCpu();
    const start = performance.now();
    const result = await what();
    ms.push(performance.now() - start);
    cpu += serverCpu() - before;
    await after(result);
  }
  return {
    p50: percentile(ms, 0.5).toFixed(1),
    p90: percentile(ms, 0.9).toFixed(1),
    cpu_ms: ((cpu * 1000) / runs).toFixed(1),
  };
}

try {
  for (let ready = false; !ready;) {
    await new Promise((r) => setTimeout(r, 500));
    ready = await fetch(`${base}/server_settings`).then(
      (r) => r.ok,
      () => false,
    );
  }
  const key = async (email) => ({
    email,
    key: (await call('POST', '/dev_fetch_api_key', null, { username: email })).api_key,
  });
  const iago = await key('iago@zulip.com');
  const email = `reader-${Date.now()}@zulip.com`;
  await call('POST', '/users', iago, { email, password: 'reader-secret-1', full_name: 'Reader' });
  const reader = {
    email,
    key: (await call('POST', '/fetch_api_key', null, { username: email, password: 'reader-secret-1' })).api_key,
  };
  const me = (await call('GET', '/users/me', reader)).user_id;
  const group = (await call('POST', '/user_groups/create', iago, { name: 'readers', description: '', members: [me] }))
    .group_id;
  for (let i = 0; i < CHANNELS; i += 10) {
    await Promise.all(
      Array.from({ length: Math.min(10, CHANNELS - i) }, (_, j) =>
        call('POST', '/channels/create', iago, {
          name: `private ${i + j}`,
          subscribers: [],
          invite_only: true,
          ...(j === 0 ? { can_subscribe_group: group } : {}),
        }),
      ),
    );
  }
  const register = async () => {
    const body = await call('POST', '/register', reader, { fetch_event_types: ['subscription'] });
    if (body.never_subscribed.filter((s) => s.invite_only).length !== Math.ceil(CHANNELS / 10)) {
      throw new Error(`never_subscribed: ${body.never_subscribed.length}`);
    }
    return body.queue_id;
  };
  const drop = (queue_id) => call('DELETE', '/events', reader, { queue_id });
  const streams = () => call('GET', '/streams', reader, { include_can_access_content: true });
  await timed(5, register, drop);
  const reg = await timed(RUNS, register, drop);
  const get = await timed(RUNS, streams);
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  console.log(JSON.stringify({ channels: CHANNELS, runs: RUNS, load, register_ms: reg, get_streams_ms: get }));
} finally {
  server.kill('SIGTERM');
  await new Promise((r) => server.once('exit', r));
  await rm(dataDir, { recursive: true, force: true });
}
