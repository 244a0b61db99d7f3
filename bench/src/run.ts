import { monitorEventLoopDelay } from 'node:perf_hooks';
import { lineChart } from './chart.js';
import type { Options, Scenario } from './config/args.js';
import { Progress } from './progress.js';
import { buildResult, machine, table, writeResult, type Result } from './report.js';
import { chat } from './scenarios/chat.js';
import type { Outcome, RunContext } from './scenarios/common.js';
import { fanout } from './scenarios/fanout.js';
import { idle } from './scenarios/idle.js';
import { overload } from './scenarios/overload.js';
import { register } from './scenarios/register.js';
import type { Cleanups } from './target.js';

const SCENARIO_RUNS: Record<Scenario, (ctx: RunContext) => Promise<Outcome>> = {
  chat,
  fanout,
  idle,
  register,
  overload,
};

export interface RunOutput {
  result: Result;
  files: { json: string; chart: string };
  table: string;
}

/**
 * One run of one scenario: measure, then write the JSON and the chart. The
 * servers it starts are stopped when it ends; `cleanups` holds what must run
 * if the process is interrupted before that.
 */
export async function run(options: Options, cleanups: Cleanups = new Set()): Promise<RunOutput> {
  const started = new Date();
  const startMachine = machine();
  const cpuBefore = process.cpuUsage();
  // How late the harness's own event loop ran: if this is high, the harness (or the machine) was the bottleneck.
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  const ctx: RunContext = { options, progress: new Progress(options.quiet), notes: [], cleanups, realms: [] };
  let outcome: Outcome;
  try {
    outcome = await SCENARIO_RUNS[options.scenario](ctx);
  } finally {
    loopDelay.disable();
    ctx.progress.stop();
  }
  const cpu = process.cpuUsage(cpuBefore);
  const result = buildResult(
    options,
    outcome,
    {
      started,
      harnessCpuSeconds: Math.round((cpu.user + cpu.system) / 10_000) / 100,
      harnessRssBytes: process.memoryUsage().rss,
      harnessLoopDelayMs: {
        p50: nanosToMs(loopDelay.percentile(50)),
        p99: nanosToMs(loopDelay.percentile(99)),
        max: nanosToMs(loopDelay.max),
      },
      machine: startMachine,
      realms: ctx.realms,
    },
    ctx.notes,
  );
  const files = await writeResult(options.resultsDir, result, lineChart(outcome.chart));
  return { result, files, table: table(result) };
}

/** The histogram holds whole sampling intervals; the lateness is what exceeds the 10 ms interval. */
const nanosToMs = (ns: number) => Math.max(0, Math.round(ns / 10_000 - 1000) / 100);
