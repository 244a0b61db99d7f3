import type { ChartSpec } from '../chart.js';
import type { Options } from '../config/args.js';
import type { ProcSample } from '../proc.js';
import type { Progress } from '../progress.js';
import type { RealmShape } from '../setup.js';
import { pick, pickShort, type Percentiles } from '../stats.js';
import { startBaseline, type Baseline } from '../baseline.js';
import type { Manifest } from '../setup.js';
import { openTarget, type Cleanups, type Target } from '../target.js';
import { KINDS, type StepRecord, type Traffic } from '../traffic.js';

export interface RunContext {
  options: Options;
  progress: Progress;
  /** Facts a reader of the result needs (caps applied, features skipped). */
  notes: string[];
  cleanups: Cleanups;
  /** Each realm the run used and how it was set up (register uses two). */
  realms: RealmSetup[];
}

export interface RealmSetup {
  key: string;
  users: number;
  /** `create-users` (the admin command, no passwords) or `POST /users`. */
  created_by: string;
  from_cache: boolean;
  /** Opening the target: starting its processes and, unless cached, building the realm. */
  setup_seconds: number;
}

export interface ServerUsage {
  server_rss_bytes: number | null;
  server_peak_rss_bytes: number | null;
  server_cpu_seconds: number | null;
  /** A server of several processes (a cluster): each one over the same interval; the figures above are sums. */
  server_processes?: Array<{
    name: string;
    pid: number;
    rss_bytes: number;
    peak_rss_bytes: number;
    cpu_seconds: number | null;
  }>;
}

/** What a scenario measured; run.ts adds the machine, the ratios and the files. */
export interface Outcome {
  throughput: number;
  throughputUnit: string;
  send: Percentiles | null;
  delivery: Percentiles | null;
  register: Percentiles | null;
  errors: number;
  errorSamples: string[];
  server: ServerUsage;
  /** Events the queues delivered over the measured part (the server usage's interval), where counted. */
  deliveredEvents?: number;
  baseline: BaselineRun;
  steps: unknown[];
  extra: Record<string, unknown>;
  chart: ChartSpec;
}

export interface BaselineRun {
  throughput: number;
  /** Send latency at the baseline's lowest step, the figure latencies are compared with. */
  send: Percentiles | null;
  broke: boolean;
  steps: unknown[];
  usage: ServerUsage;
}

/** CPU and memory of a process over the measured part of a run. */
export class Meter {
  private first: ProcSample | undefined;

  constructor(private readonly sample: () => ProcSample | undefined) {}

  begin(): void {
    this.first = this.sample();
  }

  end(): ServerUsage {
    const last = this.sample();
    const processes = last?.processes?.map((p) => {
      const before = this.first?.processes?.find((q) => q.pid === p.pid);
      return {
        name: p.name,
        pid: p.pid,
        rss_bytes: p.rssBytes,
        peak_rss_bytes: p.peakRssBytes,
        cpu_seconds: before ? cpuDelta(before.cpuSeconds, p.cpuSeconds) : null,
      };
    });
    return {
      server_rss_bytes: last?.rssBytes ?? null,
      server_peak_rss_bytes: last?.peakRssBytes ?? null,
      server_cpu_seconds: last && this.first ? cpuDelta(this.first.cpuSeconds, last.cpuSeconds) : null,
      ...(processes ? { server_processes: processes } : {}),
    };
  }
}

/** CPU seconds between two samples, to the hundredth. */
export const cpuDelta = (before: number, after: number) => Math.round((after - before) * 100) / 100;

/** Opens a target of the given shape, runs `work` and always stops it (by pid, temp folder removed). */
export async function withTarget<T>(ctx: RunContext, shape: RealmShape, work: (t: Target) => Promise<T>): Promise<T> {
  const target = await openTarget(ctx.options, shape, ctx.progress, ctx.cleanups);
  ctx.realms.push({
    key: target.manifest.key,
    users: target.manifest.users.length,
    // Manifests cached before the admin command existed were all made by POST /users.
    created_by: target.manifest.createdBy ?? 'POST /users',
    from_cache: target.setup.fromCache,
    setup_seconds: target.setup.seconds,
  });
  try {
    return await work(target);
  } finally {
    await target.stop();
  }
}

/** Starts the baseline server, runs `work` and always stops it. */
export async function withBaseline<T>(
  ctx: RunContext,
  manifest: Manifest,
  work: (b: Baseline) => Promise<T>,
): Promise<T> {
  const baseline = await startBaseline(manifest, ctx.cleanups);
  try {
    return await work(baseline);
  } finally {
    await baseline.stop();
  }
}

/** The offered rates of the steps: added to (--step-rate) or multiplied (--step-factor), up to --max-rate. */
export function* rates(options: Options): Generator<number> {
  let rate = options.startRate;
  while (rate <= options.maxRate) {
    yield Math.round(rate);
    rate = options.stepRate ? rate + options.stepRate : rate * options.stepFactor;
  }
}

/** Why a step does not count as sustained, or undefined when it does. */
export function broken(step: StepRecord, options: Options, deliveries: boolean): string | undefined {
  const send = step.kinds.send.latency.summary();
  if (step.errors > 0) return `${step.errors} errors`;
  if (send.p99 > options.maxP99Ms) return `send p99 ${send.p99} ms > ${options.maxP99Ms} ms`;
  if (step.throughput < 0.9 * step.offeredRate) return `throughput ${step.throughput}/s < 90% of ${step.offeredRate}/s`;
  if (!deliveries) return undefined;
  if (step.tally.received < step.tally.expected) {
    return `${step.tally.expected - step.tally.received} deliveries missing 5 s after the step`;
  }
  const delivery = step.tally.latency.summary();
  if (delivery.p99 > options.maxDeliveryP99Ms)
    return `delivery p99 ${delivery.p99} ms > ${options.maxDeliveryP99Ms} ms`;
  return undefined;
}

export function stepJson(step: StepRecord, seconds: number, deliveries: boolean) {
  const activity = Object.fromEntries(
    KINDS.filter((k) => k !== 'send' && step.kinds[k].count > 0).map((k) => {
      const s = step.kinds[k];
      return [k, { count: s.count, errors: s.errors, latency_ms: pickShort(s.latency.summary()) }];
    }),
  );
  return {
    offered_rate: step.offeredRate,
    seconds,
    sent: step.kinds.send.count,
    ok: step.kinds.send.ok,
    errors: step.errors,
    throughput_msgs_per_s: step.throughput,
    send_latency_ms: pick(step.kinds.send.latency.summary()),
    ...(deliveries
      ? {
          delivery_latency_ms: pickShort(step.tally.latency.summary()),
          deliveries_expected: step.tally.expected,
          deliveries_received: step.tally.received,
          activity,
        }
      : {}),
    schedule_lag_max_ms: step.lagMaxMs,
    ...(step.errorSamples.length > 0 ? { error_samples: step.errorSamples } : {}),
  };
}

/**
 * The baseline alone, stepped like the chat scenario until it breaks or its
 * time is up: the calibration the other scenarios' figures are divided by.
 */
export async function calibrate(ctx: RunContext, traffic: Traffic, meter: Meter): Promise<BaselineRun> {
  const { options, progress } = ctx;
  const deadline = Date.now() + Math.min(options.baselineSeconds, options.duration) * 1000;
  const steps: unknown[] = [];
  let best: StepRecord | undefined;
  let first: StepRecord | undefined;
  let broke = false;
  meter.begin();
  await traffic.runStep(options.startRate, options.warmupSeconds);
  for (const rate of rates(options)) {
    if (Date.now() + options.stepSeconds * 1000 > deadline) break;
    const step = await traffic.runStep(rate, options.stepSeconds);
    const why = broken(step, options, false);
    steps.push({ ...stepJson(step, options.stepSeconds, false), sustained: !why, ...(why ? { broken: why } : {}) });
    progress.log(
      `baseline ${rate}/s: ${step.throughput}/s p99 ${step.kinds.send.latency.summary().p99} ms ${why ?? ''}`,
    );
    first ??= step;
    if (why) {
      broke = true;
      break;
    }
    best = step;
  }
  if (steps.length === 0) ctx.notes.push('the baseline ran no step: --baseline-seconds is shorter than a step');
  return {
    throughput: best?.throughput ?? 0,
    send: first ? first.kinds.send.latency.summary() : null,
    broke,
    steps,
    usage: meter.end(),
  };
}

/** One figure of the server's GET /metrics (e.g. `chat_checkpoint_snapshots`), or undefined where it has none. */
export async function metric(url: string, name: string): Promise<number | undefined> {
  try {
    const text = await (await fetch(`${url}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith(`${name} `));
    return line === undefined ? undefined : Number(line.slice(name.length + 1));
  } catch {
    return undefined;
  }
}
