import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, loadavg, platform, release, totalmem } from 'node:os';
import { join } from 'node:path';
import type { Options } from './config/args.js';
import type { PresenceBurst } from './scenarios/chat-realm.js';
import type { Outcome, RealmSetup } from './scenarios/common.js';
import { openFileLimit } from './proc.js';
import { pick, pickShort, ratio } from './stats.js';

export function machine() {
  const list = cpus();
  return {
    cpus: list.length,
    cpu_model: list[0]?.model ?? 'unknown',
    memory_bytes: totalmem(),
    node: process.version,
    platform: `${platform()} ${release()}`,
    load_average_at_start: loadavg().map((l) => Math.round(l * 100) / 100),
    // The harness's own limit (raised to the hard one at start); the servers it starts inherit it.
    open_files_limit: openFileLimit(),
  };
}

/** The result file: the fields first, then what explains them. */
export function buildResult(
  options: Options,
  outcome: Outcome,
  meta: {
    started: Date;
    harnessCpuSeconds: number;
    harnessRssBytes: number;
    harnessLoopDelayMs: { p50: number; p99: number; max: number };
    machine: ReturnType<typeof machine>;
    realms: RealmSetup[];
  },
  notes: string[],
) {
  const { adminKey: _key, ...parameters } = options;
  const base = outcome.baseline;
  return {
    scenario: options.scenario,
    target: options.target,
    started_at: meta.started.toISOString(),
    finished_at: new Date().toISOString(),
    machine: meta.machine,
    parameters,
    realms: meta.realms,
    throughput_msgs_per_s: outcome.throughput,
    throughput_unit: outcome.throughputUnit,
    send_latency_ms: outcome.send && pick(outcome.send),
    delivery_latency_ms: outcome.delivery && pickShort(outcome.delivery),
    register_latency_ms: outcome.register && pick(outcome.register),
    errors: outcome.errors,
    error_samples: outcome.errorSamples,
    ...outcome.server,
    events_delivered: outcome.deliveredEvents ?? null,
    server_cpu_us_per_delivery: perDelivery(outcome.server.server_cpu_seconds, outcome.deliveredEvents ?? null),
    harness_cpu_seconds: meta.harnessCpuSeconds,
    harness_rss_bytes: meta.harnessRssBytes,
    harness_event_loop_delay_ms: meta.harnessLoopDelayMs,
    baseline_throughput_msgs_per_s: base.throughput,
    baseline_ratio: ratio(outcome.throughput, base.throughput),
    baseline: {
      broke: base.broke,
      send_latency_ms: base.send && pick(base.send),
      ...base.usage,
      ...(base.steps.length > 0 ? { steps: base.steps } : {}),
    },
    // Latencies divided by the baseline's send latency at its lowest step: a machine twice as slow moves both.
    ratios: {
      throughput: ratio(outcome.throughput, base.throughput),
      send_p50: outcome.send && base.send ? ratio(outcome.send.p50, base.send.p50) : null,
      send_p99: outcome.send && base.send ? ratio(outcome.send.p99, base.send.p99) : null,
      delivery_p50: outcome.delivery && base.send ? ratio(outcome.delivery.p50, base.send.p50) : null,
      delivery_p99: outcome.delivery && base.send ? ratio(outcome.delivery.p99, base.send.p99) : null,
      register_p50: outcome.register && base.send ? ratio(outcome.register.p50, base.send.p50) : null,
    },
    ...outcome.extra,
    notes,
    steps: outcome.steps,
  };
}

export type Result = ReturnType<typeof buildResult>;

/** Server CPU over the measured part divided by the events delivered to queues in it, in µs. */
/** Server CPU per delivered event in µs (one decimal), or null without both figures. */
export function perDelivery(cpuSeconds: number | null, events: number | null): number | null {
  if (cpuSeconds === null || !events) return null;
  return Math.round((cpuSeconds * 1e7) / events) / 10;
}

export async function writeResult(dir: string, result: Result, svg: string) {
  await mkdir(dir, { recursive: true });
  const stamp = result.started_at.replace(/:/g, '-').replace(/\.\d+Z$/, 'Z');
  const json = join(dir, `${result.scenario}-${stamp}.json`);
  const chart = join(dir, `${result.scenario}-${stamp}.svg`);
  await writeFile(json, `${JSON.stringify(result, null, 2)}\n`);
  await writeFile(chart, svg);
  return { json, chart };
}

const mib = (bytes: number | null) => (bytes === null ? '-' : `${(bytes / 1048576).toFixed(1)} MiB`);
const ms = (s: { p50: number; p99: number; max: number } | null) => (s ? `${s.p50} / ${s.p99} / ${s.max}` : '-');

/** The small table on stdout. */
export function table(result: Result): string {
  const r = result.ratios;
  const rows: Array<[string, string, string]> = [
    ['throughput', `${result.throughput_msgs_per_s} (${result.throughput_unit})`, `${r.throughput ?? '-'}`],
    ['send ms p50/p99/max', ms(result.send_latency_ms), `${r.send_p50 ?? '-'} / ${r.send_p99 ?? '-'}`],
    ['delivery ms p50/p99/max', ms(result.delivery_latency_ms), `${r.delivery_p50 ?? '-'} / ${r.delivery_p99 ?? '-'}`],
    ['register ms p50/p99/max', ms(result.register_latency_ms), `${r.register_p50 ?? '-'}`],
    ['errors', `${result.errors}`, ''],
    ['server RSS (peak)', `${mib(result.server_rss_bytes)} (${mib(result.server_peak_rss_bytes)})`, ''],
    ['server CPU', result.server_cpu_seconds === null ? '-' : `${result.server_cpu_seconds} s`, ''],
    [
      'server CPU per delivery',
      result.server_cpu_us_per_delivery === null
        ? '-'
        : `${result.server_cpu_us_per_delivery} µs (${result.events_delivered} events)`,
      '',
    ],
    ['harness CPU', `${result.harness_cpu_seconds} s`, ''],
    [
      'harness loop delay p99',
      `${result.harness_event_loop_delay_ms.p99} ms (max ${result.harness_event_loop_delay_ms.max})`,
      '',
    ],
    [
      'baseline throughput',
      `${result.baseline_throughput_msgs_per_s} msgs/s${result.baseline.broke ? '' : ' (lower bound)'}`,
      '',
    ],
  ];
  // overload runs no baseline: its figures are held to the goals instead.
  if (result.scenario === 'overload') rows.pop();
  const burst = (result as { presence_burst?: PresenceBurst }).presence_burst;
  if (burst && burst.clients > 0) {
    rows.push([
      'presence burst',
      `${burst.clients} online in ${burst.seconds} s: ${burst.events_delivered} events, server CPU ${burst.server_cpu_seconds ?? '-'} s (${burst.server_cpu_ms_per_client ?? '-'} ms a client)`,
      '',
    ]);
  }
  rows.push(...overloadRows(result));
  const width = Math.max(...rows.map((row) => row[1].length));
  const lines = [
    `${result.scenario} on ${result.target}: ${result.machine.cpus} cpus, node ${result.machine.node}`,
    `${'figure'.padEnd(24)} ${'value'.padEnd(width)}  ratio to baseline`,
    ...rows.map(([name, value, ratioText]) => `${name.padEnd(24)} ${value.padEnd(width)}  ${ratioText}`),
  ];
  for (const p of result.server_processes ?? []) {
    lines.push(`  ${p.name.padEnd(22)} ${mib(p.rss_bytes)} (${mib(p.peak_rss_bytes)}), CPU ${p.cpu_seconds ?? '-'} s`);
  }
  for (const note of result.notes) lines.push(`note: ${note}`);
  return lines.join('\n');
}

type Short = { p50: number; p99: number; max: number };
const pct = (share: number) => `${Math.round(share * 100)}%`;

/** The overload scenario's figures (issue 21 line 6), each with the goal it is held to. */
function overloadRows(result: Result): Array<[string, string, string]> {
  const o = (result as { overload?: Record<string, any> }).overload;
  if (!o) return [];
  const lat = (s: Short) => `${s.p50} / ${s.p99} / ${s.max}`;
  const mark = (v: boolean | null) => (v === null ? '' : v ? 'goal met' : 'goal MISSED');
  const g = o.goals as Record<string, boolean | null>;
  return [
    [
      'load',
      `${o.offered_rate} msgs/s (${o.seconds} s) over sustainable ${o.sustainable_rate} (${o.sustainable_from}), busy cores ${o.busy_cores}, load avg ${o.load_average.before[0]} -> ${o.load_average.after[0]}`,
      '',
    ],
    [
      'refused (503/429)',
      `${o.refused.count} of ${o.offered_requests}, ${o.refused.with_retry_after} with Retry-After; ms ${lat(o.refused.latency_ms)}`,
      mark(g.refused_fast),
    ],
    [
      'admitted send ms',
      `${lat(o.admitted.send_latency_ms)} (${o.admitted.sends_ok} ok, ${o.admitted.throughput_msgs_per_s}/s)`,
      mark(g.admitted_send_p99),
    ],
    [
      'admitted delivery ms',
      `${lat(o.admitted.delivery_latency_ms)} (${o.admitted.deliveries_received}/${o.admitted.deliveries_expected})`,
      mark(g.admitted_delivery_p99),
    ],
    ['admitted presence ms', lat(o.admitted.presence_latency_ms), mark(g.admitted_presence_p99)],
    [
      'polls while loaded',
      `${o.polls.polls}, refused ${o.polls.refused}, other errors ${o.polls.errors - o.polls.refused}`,
      '',
    ],
    ['other errors', `${o.other_errors}`, ''],
    [
      'main threads, loaded',
      (o.server_main_threads ?? [])
        .map(
          (p: Record<string, any>) =>
            `${p.name} ran ${pct(p.running_share)}, waited for a CPU ${pct(p.waiting_for_cpu_share)}`,
        )
        .join('; '),
      '',
    ],
    ['peak RSS (sampled)', mib(o.peak_rss_bytes), mark(g.peak_rss_under_1_5_gib)],
    ['quiet probe send ms', lat(o.quiet.probe_send_latency_ms), ''],
    [
      'recovery',
      o.recovery_seconds === null
        ? `not within the run (probe <= ${o.recovery_threshold_ms} ms)`
        : `${o.recovery_seconds} s (probe <= ${o.recovery_threshold_ms} ms)`,
      mark(g.recovered_within_10_s),
    ],
  ];
}
