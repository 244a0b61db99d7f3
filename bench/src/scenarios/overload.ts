import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { burnCores } from '../busy.js';
import { isRefusal, type Answer, type Http } from '../http.js';
import { openLoop } from '../load.js';
import type { Manifest } from '../setup.js';
import { Latency, pick, pickShort } from '../stats.js';
import { Refusals, type KindStats, type StepRecord } from '../traffic.js';
import { Random, sleep } from '../util.js';
import { chatRealm } from './chat-realm.js';
import { broken, Meter, rates, stepJson, type Outcome, type RunContext } from './common.js';

/** The goals (issue 21, line 6) that the figures are checked against. */
const GOALS = { peakRssBytes: 1.5 * 1024 ** 3, refusalP99Ms: 100, recoverySeconds: 10 };

/**
 * More than the server can take: the chat realm, its queues and presence,
 * then `--overload-factor` (3) times the sustainable send rate (`--rate`,
 * or the best sustained step of a quick stepped run) for
 * `--overload-seconds` (60), between `--quiet-seconds` of quiet before and
 * `--recovery-seconds` after. A probe of `--probe-rate` sends a second runs
 * throughout: its latency before the load is the quiet latency, and after
 * the load it says when the server is back. With `--busy-cores N`, N
 * processes burn a core each for the whole measured part. See bench/README.md.
 */
export async function overload(ctx: RunContext): Promise<Outcome> {
  const { options, progress, notes } = ctx;
  return chatRealm(ctx, async ({ target, fleet, senders, traffic, presence, presenceBurst }) => {
    const { manifest } = target;
    const stopBusy = options.busyCores > 0 ? burnCores(options.busyCores, ctx.cleanups) : undefined;
    try {
      const meter = new Meter(() => target.sample());
      await traffic.runStep(options.startRate, options.warmupSeconds);
      meter.begin();
      const eventsBefore = fleet.polls.events;

      // 1. The sustainable rate: given, or the best sustained step of a quick stepped run.
      const calibration: unknown[] = [];
      let sustainable = options.rate;
      if (!sustainable) {
        for (const rate of rates(options)) {
          const step = await traffic.runStep(rate, options.stepSeconds);
          const why = broken(step, options, true);
          calibration.push({ ...stepJson(step, options.stepSeconds, true), sustained: !why, broken: why ?? null });
          progress.log(`calibration ${rate}/s: ${why ?? 'sustained'}`);
          if (why) break;
          sustainable = rate;
          if (calibration.length >= 8) break;
        }
        if (!sustainable) {
          sustainable = options.startRate;
          notes.push(`no calibration step was sustained: the sustainable rate is taken as --start-rate ${sustainable}`);
        }
      }
      const offered = Math.round(sustainable * options.overloadFactor * 10) / 10;
      progress.log(
        `overload: ${offered} msgs/s (${options.overloadFactor} x ${sustainable}) for ${options.overloadSeconds} s`,
      );

      // 2. Quiet, overload, recovery; the probe and the memory sampler run throughout.
      const loadBefore = loadavg();
      const probe = new Probe(target.http, manifest, senders, options.seed + 1);
      const memory = new MemorySampler(() => target.sample()?.rssBytes);
      const t0 = performance.now();
      const quietMs = options.quietSeconds * 1000;
      const loadEnd = quietMs + options.overloadSeconds * 1000;
      const total = options.quietSeconds + options.overloadSeconds + options.recoverySeconds;
      const probing = openLoop(options.probeRate, total, (intended) => probe.fire(intended - t0, intended));
      presence.measure();
      const pollsAt = () => ({ ...fleet.polls });
      await sleep(quietMs);
      const quietPresence = presence.measure();
      const pollsBefore = pollsAt();
      const one = target.pid === undefined ? [] : [{ name: 'server', pid: target.pid }];
      const cpu = new RunQueue(target.sample()?.processes ?? one);
      progress.log('overload: load on');
      const step = await traffic.runStep(offered, options.overloadSeconds);
      const cpuWhileLoaded = cpu.shares();
      // runStep waited for its stragglers: the load itself stopped at loadEnd.
      const loadPresence = presence.measure();
      const pollsAfter = pollsAt();
      progress.log('overload: load off, watching recovery');
      await probing;
      await probe.settled();
      memory.stop();
      const server = meter.end();
      const deliveredEvents = fleet.polls.events - eventsBefore;
      const loadAfter = loadavg();
      await presence.stop();
      fleet.stop();
      if (target.kind === 'url') await fleet.deleteQueues();

      const quiet = probe.latency(0, quietMs);
      const threshold = Math.round(Math.max(2 * quiet.p99, quiet.p99 + 20));
      const recovery = probe.recoveredAfter(loadEnd, threshold);
      const refusals = new Refusals();
      for (const kind of Object.values(step.kinds)) refusals.add(kind.refusals);
      refusals.add(loadPresence.refusals);
      const refused = refusals.latency.summary();
      const send = step.kinds.send.latency.summary();
      const delivery = step.tally.latency.summary();
      const presenceLatency = loadPresence.latency.summary();
      const otherErrors = Object.values(step.kinds).reduce((n, k) => n + k.errors - k.refused, 0);
      const peakRss = Math.max(memory.peak, 0);
      const figures = {
        sustainable_rate: sustainable,
        sustainable_from: options.rate ? '--rate' : 'stepped run',
        offered_rate: offered,
        seconds: options.overloadSeconds,
        busy_cores: options.busyCores,
        load_average: { before: loadBefore.map(round2), after: loadAfter.map(round2) },
        offered_requests: Object.values(step.kinds).reduce((n, k) => n + k.count, 0) + loadPresence.count,
        admitted: {
          sends_ok: step.kinds.send.ok,
          throughput_msgs_per_s: step.throughput,
          send_latency_ms: pick(send),
          delivery_latency_ms: pickShort(delivery),
          deliveries_expected: step.tally.expected,
          deliveries_received: step.tally.received,
          presence_latency_ms: pickShort(presenceLatency),
          activity: activity(step),
        },
        refused: {
          count: refusals.count,
          with_retry_after: refusals.withRetryAfter,
          latency_ms: pickShort(refused),
        },
        other_errors: otherErrors + loadPresence.errors - loadPresence.refused,
        error_samples: step.errorSamples,
        polls: {
          polls: pollsAfter.polls - pollsBefore.polls,
          refused: pollsAfter.refused - pollsBefore.refused,
          errors: pollsAfter.errors - pollsBefore.errors,
        },
        registrations_refused_and_retried: fleet.polls.registersRefused,
        server_main_threads: cpuWhileLoaded,
        peak_rss_bytes: peakRss || null,
        quiet: {
          probe_send_latency_ms: pickShort(quiet),
          presence_latency_ms: pickShort(quietPresence.latency.summary()),
        },
        recovery_seconds: recovery,
        recovery_threshold_ms: threshold,
        probe: probe.json(loadEnd),
        goals: {
          peak_rss_under_1_5_gib: peakRss > 0 ? peakRss < GOALS.peakRssBytes : null,
          refused_fast: refusals.count === 0 ? null : refused.p99 <= GOALS.refusalP99Ms,
          refusals_say_retry_after: refusals.count === 0 ? null : refusals.withRetryAfter === refusals.count,
          admitted_send_p99: send.p99 <= options.maxP99Ms,
          admitted_delivery_p99: delivery.p99 <= options.maxDeliveryP99Ms,
          admitted_presence_p99: presenceLatency.p99 <= options.maxP99Ms,
          recovered_within_10_s: recovery !== null && recovery <= GOALS.recoverySeconds,
        },
        calibration,
      };
      return {
        throughput: step.throughput,
        throughputUnit: 'messages sent per second while overloaded (admitted and answered 200)',
        send,
        delivery,
        register: fleet.register.summary(),
        errors: figures.other_errors + fleet.registerErrors + figures.polls.errors - figures.polls.refused,
        errorSamples: [...step.errorSamples, ...fleet.polls.errorSamples, ...presence.errorSamples].slice(0, 10),
        server,
        deliveredEvents,
        baseline: { throughput: 0, send: null, broke: false, steps: [], usage: emptyUsage },
        steps: [],
        extra: { overload: figures, presence_burst: presenceBurst },
        chart: {
          title: `overload: ${offered} msgs/s offered (${options.overloadFactor} x ${sustainable}) for ${options.overloadSeconds} s`,
          subtitle: `probe sends (${options.probeRate}/s); load from ${options.quietSeconds} s to ${loadEnd / 1000} s; busy cores ${options.busyCores}`,
          xLabel: 'seconds since the quiet part began',
          yLabel: 'ms (log scale) / MiB',
          logY: true,
          series: [
            { name: 'probe send latency (ms)', points: probe.points('ok') },
            { name: 'probe refused (ms)', points: probe.points('refused') },
            { name: 'server RSS (MiB)', points: memory.points(t0), dashed: true },
          ],
        },
      };
    } finally {
      await stopBusy?.();
    }
  });
}

const round2 = (n: number) => Math.round(n * 100) / 100;
const emptyUsage = { server_rss_bytes: null, server_peak_rss_bytes: null, server_cpu_seconds: null };

function activity(step: StepRecord) {
  const row = (k: KindStats) => ({
    count: k.count,
    ok: k.ok,
    refused: k.refused,
    latency_ms: pickShort(k.latency.summary()),
  });
  return Object.fromEntries(Object.entries(step.kinds).map(([name, k]) => [name, row(k)]));
}

interface ProbeSend {
  /** ms since the probe began, when the send was due. */
  at: number;
  ms: number;
  outcome: 'ok' | 'refused' | 'error';
}

/** Channel sends at a low rate, each kept with when it was due, how long it took and how it ended. */
class Probe {
  private readonly sends: ProbeSend[] = [];
  private readonly rng: Random;
  private pending = 0;

  constructor(
    private readonly http: Http,
    private readonly manifest: Manifest,
    private readonly senders: number[],
    seed: number,
  ) {
    this.rng = new Random(seed);
  }

  fire(at: number, intended: number): void {
    const sender = this.manifest.users[this.rng.pick(this.senders)]!;
    const channel = this.manifest.channels.find((c) => c.members.includes(sender.index));
    const params = channel
      ? { type: 'stream', to: channel.name, topic: 'probe', content: 'Probe message' }
      : { type: 'direct', to: [sender.userId], content: 'Probe message' };
    this.pending++;
    void this.http.request('POST', '/messages', params, sender).then((answer: Answer) => {
      this.pending--;
      const ok = answer.status === 200 && answer.body.result === 'success';
      this.sends.push({ at, ms: answer.end - intended, outcome: ok ? 'ok' : isRefusal(answer) ? 'refused' : 'error' });
    });
  }

  async settled(): Promise<void> {
    for (let i = 0; i < 600 && this.pending > 0; i++) await sleep(100);
  }

  /** Latency of the successful sends due in [from, to). */
  latency(from: number, to: number) {
    const latency = new Latency();
    for (const s of this.sends) if (s.at >= from && s.at < to && s.outcome === 'ok') latency.recordMs(s.ms);
    return latency.summary();
  }

  /**
   * Seconds after `loadEnd` from which every probe send succeeded within
   * `thresholdMs`, to the end of the run; null if the last ones did not.
   */
  recoveredAfter(loadEnd: number, thresholdMs: number): number | null {
    const after = this.sends.filter((s) => s.at >= loadEnd).sort((a, b) => a.at - b.at);
    if (after.length === 0) return null;
    let firstGood: number | null = null;
    for (const s of after) {
      const good = s.outcome === 'ok' && s.ms <= thresholdMs;
      if (!good) firstGood = null;
      else firstGood ??= s.at;
    }
    if (firstGood === null) return null;
    // The last bad one before it (or the load's end) is when the server was still behind.
    return Math.round(Math.max(0, firstGood - loadEnd) / 100) / 10;
  }

  json(loadEnd: number) {
    const by = (outcome: ProbeSend['outcome']) => this.sends.filter((s) => s.outcome === outcome).length;
    return {
      sends: this.sends.length,
      ok: by('ok'),
      refused: by('refused'),
      errors: by('error'),
      after_load_latency_ms: pickShort(this.latency(loadEnd, Infinity)),
    };
  }

  points(outcome: 'ok' | 'refused'): Array<[number, number]> {
    return this.sends
      .filter((s) => s.outcome === outcome)
      .sort((a, b) => a.at - b.at)
      .map((s) => [round2(s.at / 1000), Math.max(0.1, round2(s.ms))]);
  }
}

/** The server's RSS every half second: its peak over the part measured, and a series for the chart. */
class MemorySampler {
  peak = 0;
  private readonly samples: Array<[number, number]> = [];
  private readonly timer: NodeJS.Timeout;

  constructor(read: () => number | undefined) {
    const sample = () => {
      const rss = read();
      if (rss === undefined) return;
      this.peak = Math.max(this.peak, rss);
      this.samples.push([performance.now(), rss]);
    };
    sample();
    this.timer = setInterval(sample, 500);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  points(t0: number): Array<[number, number]> {
    return this.samples.map(([t, rss]) => [round2((t - t0) / 1000), Math.round(rss / 1048576)]);
  }
}

/**
 * How each server process's main thread (its event loop) spent the load:
 * running, or runnable but waiting for a CPU (the kernel's run-queue time
 * in /proc/<pid>/schedstat). On a shared machine a high wait means the
 * latencies are the machine's, whatever the server does.
 */
class RunQueue {
  private readonly start = performance.now();
  private readonly before: Map<number, [number, number]>;

  constructor(private readonly processes: Array<{ name: string; pid: number }>) {
    this.before = new Map(processes.flatMap((p) => schedstat(p.pid).map((v) => [p.pid, v] as const)));
  }

  shares() {
    const seconds = (performance.now() - this.start) / 1000;
    return this.processes.flatMap(({ name, pid }) => {
      const [before, after] = [this.before.get(pid), schedstat(pid)[0]];
      if (!before || !after) return [];
      const share = (i: 0 | 1) => round2((after[i] - before[i]) / 1e9 / seconds);
      return [{ name, pid, running_share: share(0), waiting_for_cpu_share: share(1) }];
    });
  }
}

/** [ns on a CPU, ns runnable but waiting] of a process's main thread; none when it cannot be read. */
function schedstat(pid: number): Array<[number, number]> {
  try {
    const [running, waiting] = readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ').map(Number);
    return [[running!, waiting!]];
  } catch {
    return [];
  }
}
