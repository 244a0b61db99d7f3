import { performance } from 'node:perf_hooks';
import { registerParams } from '../clients.js';
import { Latency, pick, type Percentiles } from '../stats.js';
import { Traffic } from '../traffic.js';
import { Random } from '../util.js';
import {
  calibrate,
  Meter,
  withBaseline,
  withTarget,
  type BaselineRun,
  type Outcome,
  type RunContext,
  type ServerUsage,
} from './common.js';

/**
 * Snapshot latency: on a realm of each size, random users register one at
 * a time with what a full client asks for (every section), and delete the
 * queue right after, so queues do not pile up between samples.
 */
export async function register(ctx: RunContext): Promise<Outcome> {
  const { options, progress, notes } = ctx;
  const sizes = [...options.users].sort((a, b) => a - b);
  const params = registerParams(options.eventTypes);
  const rng = new Random(options.seed);
  const steps: Array<Record<string, unknown>> = [];
  const perSize: Array<{ users: number; latency: Latency; usage: ServerUsage }> = [];
  let errors = 0;
  const errorSamples: string[] = [];
  let calibration: BaselineRun | undefined;
  const share = (options.duration * 1000) / sizes.length;
  for (const users of sizes) {
    const shape = {
      scenario: 'register' as const,
      users,
      channels: options.channels,
      channelSize: options.channelSize,
    };
    await withTarget(ctx, shape, async (target) => {
      const { manifest } = target;
      const latency = new Latency();
      const bytes: number[] = [];
      const meter = new Meter(() => target.sample());
      const warmup = manifest.users[0]!;
      await target.http.request('POST', '/register', params, warmup, 120_000); // not recorded: JIT and caches
      meter.begin();
      const deadline = Date.now() + share;
      progress.start(`registering (${users} users)`, options.registers);
      for (let i = 0; i < options.registers && Date.now() < deadline; i++) {
        const user = rng.pick(manifest.users);
        const start = performance.now();
        const answer = await target.http.request('POST', '/register', params, user, 120_000);
        progress.increment();
        if (answer.status !== 200) {
          errors++;
          if (errorSamples.length < 5) errorSamples.push(`POST /register: ${answer.status} ${answer.body.msg}`);
          continue;
        }
        latency.recordMs(answer.end - start);
        bytes.push(answer.bytes);
        await target.http.request('DELETE', '/events', { queue_id: answer.body.queue_id }, user);
      }
      progress.stop();
      const usage = meter.end();
      if (latency.count < options.registers)
        notes.push(`${users} users: --duration reached after ${latency.count} registrations`);
      perSize.push({ users, latency, usage });
      steps.push({
        users,
        registrations: latency.count,
        register_latency_ms: pick(latency.summary()),
        snapshot_bytes_median: bytes.sort((a, b) => a - b)[Math.floor(bytes.length / 2)] ?? null,
        ...usage,
      });
      // The baseline once, on the first realm: it only needs the bench users' keys.
      if (!calibration) {
        const senders = manifest.users.slice(0, 1000).map((u) => u.index);
        calibration = await withBaseline(ctx, manifest, (baseline) => {
          const traffic = new Traffic(baseline.http, manifest, senders, options, options.seed);
          return calibrate(ctx, traffic, new Meter(() => baseline.sample()));
        });
      }
    });
  }
  const largest = perSize.at(-1)!;
  const summary: Percentiles = largest.latency.summary();
  return {
    // Time spent registering only (the deletes between samples excluded): 1 / mean latency.
    throughput: summary.mean > 0 ? Math.round((1000 / summary.mean) * 10) / 10 : 0,
    throughputUnit: `registrations per second, one at a time, on the ${largest.users}-user realm`,
    send: null,
    delivery: null,
    register: summary,
    errors,
    errorSamples,
    server: largest.usage,
    baseline: calibration!,
    steps,
    extra: { realm_users: sizes },
    chart: {
      title: 'register: snapshot latency by realm size',
      subtitle: sizes.map((s, i) => `${s} users: p50 ${perSize[i]!.latency.summary().p50} ms`).join(', '),
      xLabel: 'POST /register latency (ms, log scale)',
      yLabel: 'percentile',
      logX: true,
      series: perSize.map((s) => ({ name: `${s.users} users`, points: s.latency.cdf() })),
    },
  };
}
