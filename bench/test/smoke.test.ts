import anyTest, { type ExecutionContext, type TestFn } from 'ava';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Http } from '../src/http.js';
import { KindStats } from '../src/traffic.js';
import { defaultOptions, run, type Options, type Scenario } from '../src/index.js';

/**
 * The harness end to end on a tiny realm against an embedded server: it
 * proves the harness works, not how fast anything is (the real runs are not
 * part of the tests). Cache and results go to a temporary folder. The runs
 * go one at a time: each starts a server, its edge worker and a baseline, and
 * four at once beside the rest of the suite on a loaded 2-core machine
 * outlasted their timeouts (a CI run at load 13). The timeouts only catch a hang.
 */
const test = anyTest as TestFn<{ dir: string }>;

test.before(async (t) => {
  t.context.dir = await mkdtemp(join(tmpdir(), 'bench-smoke-'));
});
/** Each run's cleanups: a run that timed out never reached its own, so its server, edge worker and baseline are stopped here. */
const runs = new Set<Set<() => Promise<void>>>();
test.after.always(async (t) => {
  for (const cleanups of runs) for (const cleanup of cleanups) await cleanup().catch(() => {});
  await rm(t.context.dir, { recursive: true, force: true });
});

function tiny(dir: string, scenario: Scenario): Options {
  return {
    ...defaultOptions(scenario),
    users: [20],
    channels: 4,
    channelSize: 10,
    queues: 20,
    startRate: 5,
    stepRate: 5,
    maxRate: 10,
    stepSeconds: 1,
    warmupSeconds: 1,
    baselineSeconds: 3,
    duration: 20,
    registers: 10,
    // Low bounds would make a loaded test machine fail the smoke test; breaking is not what it checks.
    maxP99Ms: 10_000,
    maxDeliveryP99Ms: 10_000,
    cacheDir: join(dir, 'cache', scenario),
    resultsDir: join(dir, 'results', scenario),
    quiet: true,
  };
}

type Figures = { p50: number; p95?: number; p99: number; max: number };

function ordered(t: { true(v: boolean, m?: string): void }, name: string, f: Figures | null) {
  t.true(f !== null && f.p50 > 0, `${name}: ${JSON.stringify(f)}`);
  t.true(
    f!.p50 <= (f!.p95 ?? f!.p99) && (f!.p95 ?? f!.p99) <= f!.p99 && f!.p99 <= f!.max,
    `${name}: ${JSON.stringify(f)}`,
  );
}

async function runAndRead(options: Options) {
  const cleanups = new Set<() => Promise<void>>();
  runs.add(cleanups);
  const output = await run(options, cleanups);
  const written = JSON.parse(await readFile(output.files.json, 'utf8')) as Record<string, any>;
  return { output, written, cleanups };
}

test.serial('chat: two steps against an embedded server and the baseline, every figure written', async (t) => {
  t.timeout(240_000);
  const { output, written, cleanups } = await runAndRead(tiny(t.context.dir, 'chat'));
  t.is(cleanups.size, 0, 'the server and the baseline were stopped and their folders removed');
  t.like(written, { scenario: 'chat', target: 'embedded', errors: 0 });
  t.true(written.machine.cpus > 0 && written.machine.memory_bytes > 0 && written.machine.node === process.version);
  t.like(written.parameters, { users: [20], channels: 4, stepSeconds: 1 });
  // Built by the server's create-users admin command (no password hashes), then kept in the cache.
  t.like(written.realms, [{ users: 20, created_by: 'create-users', from_cache: false }]);
  t.true(written.throughput_msgs_per_s > 0);
  ordered(t, 'send', written.send_latency_ms);
  ordered(t, 'delivery', written.delivery_latency_ms);
  ordered(t, 'register', written.register_latency_ms);
  t.true(written.server_rss_bytes > 0 && written.server_cpu_seconds >= 0);
  t.true(written.baseline_throughput_msgs_per_s > 0);
  t.true(written.baseline_ratio > 0);
  t.deepEqual(
    written.steps.map((s: any) => s.offered_rate),
    [5, 10],
  );
  for (const step of written.steps) {
    t.is(step.server.errors, 0);
    t.is(step.server.deliveries_received, step.server.deliveries_expected, 'every message reached every live queue');
    t.true(step.server.deliveries_expected > 0);
    t.true(step.baseline.ok > 0);
    // Per step too, so that runs compare at the same offered rate.
    t.true(step.server.events_delivered >= step.server.deliveries_received, JSON.stringify(step.server));
    t.is(
      step.server.server_cpu_us_per_delivery,
      Math.round((step.server.server_cpu_seconds * 1e7) / step.server.events_delivered) / 10,
    );
  }
  t.is(written.first_step_server_cpu_us_per_delivery, written.steps[0].server.server_cpu_us_per_delivery);
  t.true(existsSync(output.files.chart));
  t.regex(await readFile(output.files.chart, 'utf8'), /^<svg[\s\S]*<polyline[\s\S]*<\/svg>$/);
  t.regex(output.table, /throughput/);
  // Every message delivery is an event the queues delivered; presence, edits, reactions and flags add to them.
  const messages = written.steps.reduce((sum: number, s: any) => sum + s.server.deliveries_received, 0);
  t.true(written.events_delivered >= messages, `${written.events_delivered} events, ${messages} messages`);
  perDelivery(t, written, output.table);
  // Twenty users, under the presence limit (100): each one coming online is an event to everyone else's queue.
  const burst = written.presence_burst;
  t.like(burst, { clients: 20 });
  t.true(burst.events_delivered >= 20 * 19, JSON.stringify(burst));
  t.is(burst.server_cpu_ms_per_client, Math.round((burst.server_cpu_seconds * 1e5) / 20) / 100);
  t.regex(output.table, new RegExp(`presence burst +20 online in [\\d.]+ s: ${burst.events_delivered} events`));
});

/** server_cpu_us_per_delivery: the measured part's server CPU over the events delivered in it, in the JSON and the table. */
function perDelivery(t: ExecutionContext<unknown>, written: Record<string, any>, table: string) {
  const expected = Math.round((written.server_cpu_seconds * 1e7) / written.events_delivered) / 10;
  t.is(written.server_cpu_us_per_delivery, expected);
  t.regex(table, new RegExp(`server CPU per delivery +${expected} µs \\(${written.events_delivered} events\\)`));
}

test.serial('fanout: every message to every member, and the CPU each delivery cost', async (t) => {
  t.timeout(240_000);
  const { written, output, cleanups } = await runAndRead({ ...tiny(t.context.dir, 'fanout'), messages: 3 });
  t.is(cleanups.size, 0);
  t.like(written, { scenario: 'fanout', errors: 0, live_queues: 20 });
  t.is(written.steps.length, 3);
  // One channel of all 20: each message is an event in each of the 20 queues (the sender's too).
  t.is(written.events_delivered, 3 * 20);
  perDelivery(t, written, output.table);
});

test.serial('register: snapshot latency on a 20-user realm', async (t) => {
  t.timeout(240_000);
  const { output, written, cleanups } = await runAndRead(tiny(t.context.dir, 'register'));
  t.is(cleanups.size, 0);
  t.like(written, { scenario: 'register', errors: 0 });
  ordered(t, 'register', written.register_latency_ms);
  t.is(written.steps.length, 1);
  t.like(written.steps[0], { users: 20, registrations: 10 });
  t.true(written.steps[0].snapshot_bytes_median > 1000, 'a full snapshot');
  t.true(written.throughput_msgs_per_s > 0 && written.baseline_throughput_msgs_per_s > 0);
  t.true(written.server_rss_bytes > 0);
  t.true(existsSync(output.files.chart));
});

test.serial('overload: a few seconds of 3x a given rate, with a busy neighbour, every figure written', async (t) => {
  t.timeout(240_000);
  const options = {
    ...tiny(t.context.dir, 'overload'),
    rate: 5,
    overloadSeconds: 3,
    quietSeconds: 1,
    recoverySeconds: 2,
    probeRate: 5,
    busyCores: 1,
  };
  const { output, written, cleanups } = await runAndRead(options);
  t.is(cleanups.size, 0, 'the server and the CPU-burning neighbour were stopped');
  t.like(written, { scenario: 'overload', errors: 0 });
  const o = written.overload;
  t.like(o, { sustainable_rate: 5, sustainable_from: '--rate', offered_rate: 15, seconds: 3, busy_cores: 1 });
  t.true(o.load_average.before.length === 3 && o.load_average.after.length === 3);
  // Every request of the load is accounted for: admitted and answered, refused, or failed otherwise.
  const answered = Object.values(o.admitted.activity as Record<string, { ok: number }>).reduce((n, k) => n + k.ok, 0);
  t.true(o.offered_requests > 0);
  t.true(answered + o.refused.count + o.other_errors <= o.offered_requests);
  t.true(o.admitted.sends_ok > 0);
  ordered(t, 'admitted send', o.admitted.send_latency_ms);
  ordered(t, 'quiet probe', o.quiet.probe_send_latency_ms);
  t.true(o.peak_rss_bytes > 0);
  t.true(o.recovery_seconds === null || o.recovery_seconds >= 0);
  t.true(o.recovery_threshold_ms > 0);
  t.true(o.probe.sends > 0);
  t.is(typeof o.goals.peak_rss_under_1_5_gib, 'boolean');
  for (const row of ['refused \\(503/429\\)', 'admitted send ms', 'admitted delivery ms', 'peak RSS', 'recovery']) {
    t.regex(output.table, new RegExp(row));
  }
  t.true(existsSync(output.files.chart));
});

test('overload: a refusal (503 or 429) is counted apart, with its Retry-After, and kept out of the admitted latency', (t) => {
  const stats = new KindStats();
  stats.record({ status: 200, body: { result: 'success' }, end: 30, bytes: 0 }, 0);
  stats.record({ status: 503, body: { result: 'error' }, end: 5, bytes: 0, retryAfter: '1' }, 0);
  stats.record({ status: 429, body: { result: 'error' }, end: 7, bytes: 0 }, 0);
  stats.record({ status: 0, body: { result: 'error' }, end: 30_000, bytes: 0 }, 0);
  t.like(stats, { ok: 1, errors: 3, refused: 2 });
  t.like(stats.refusals, { count: 2, withRetryAfter: 1 });
  t.like(stats.refusals.latency.summary(), { count: 2, max: 7 });
  t.like(stats.latency.summary(), { count: 2, max: 30_000 });
  t.true(stats.latency.summary().p50 < 31, 'the refusals are not among the admitted');
});

test("a cluster's edges: each user sticks to one edge, and the users are spread over all of them", async (t) => {
  const seen = [new Map<string, number>(), new Map<string, number>()];
  const servers = await Promise.all(
    seen.map(async (counts) => {
      const server = createServer((req, res) => {
        const user = Buffer.from(String(req.headers.authorization).slice(6), 'base64').toString().split(':')[0]!;
        counts.set(user, (counts.get(user) ?? 0) + 1);
        res.setHeader('content-type', 'application/json');
        res.end('{"result":"success","msg":""}');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return server;
    }),
  );
  t.teardown(() => servers.forEach((s) => s.close()));
  const http = new Http(servers.map((s) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`));
  const users = Array.from({ length: 100 }, (_, i) => ({ email: `bench-user-${i}@example.com`, apiKey: 'k' }));
  for (let round = 0; round < 3; round++) {
    for (const user of users) t.is((await http.request('GET', '/users/me', {}, user)).status, 200);
  }
  http.close();
  for (const user of users) {
    t.deepEqual(
      seen.map((counts) => counts.get(user.email) ?? 0).sort(),
      [0, 3],
      `${user.email} went to one edge only`,
    );
  }
  for (const counts of seen) t.true(counts.size >= 30, `an edge served ${counts.size} of 100 users`);
});
