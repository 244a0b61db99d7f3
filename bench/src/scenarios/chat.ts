import { Traffic, type StepRecord } from '../traffic.js';
import { pickShort } from '../stats.js';
import { perDelivery } from '../report.js';
import { chatRealm } from './chat-realm.js';
import { broken, cpuDelta, Meter, rates, stepJson, withBaseline, type Outcome, type RunContext } from './common.js';

/**
 * Many users chatting: every user has a live queue; the send rate steps
 * upward until a step breaks. Each rate runs against the baseline and then
 * the server, back to back, so both see the same machine at the same time;
 * the baseline keeps stepping after the server broke, until it breaks too.
 */
export async function chat(ctx: RunContext): Promise<Outcome> {
  const { options, progress, notes } = ctx;
  return chatRealm(ctx, async ({ target, fleet, senders, traffic, presence, presenceBurst }) => {
    const { manifest } = target;
    return withBaseline(ctx, manifest, async (baseline) => {
      const baseTraffic = new Traffic(baseline.http, manifest, senders, options, options.seed);
      const serverMeter = new Meter(() => target.sample());
      const baseMeter = new Meter(() => baseline.sample());
      // Warm-up at the first rate, not recorded: JIT and connection setup on both sides.
      await baseTraffic.runStep(options.startRate, options.warmupSeconds);
      await traffic.runStep(options.startRate, options.warmupSeconds);
      // Measuring starts now: --duration leaves out setup and the warm-ups.
      const deadline = Date.now() + options.duration * 1000;
      serverMeter.begin();
      const eventsBefore = fleet.polls.events;
      baseMeter.begin();
      const steps: Array<Record<string, unknown>> = [];
      let best: StepRecord | undefined;
      let first: StepRecord | undefined;
      let bestBase: StepRecord | undefined;
      let firstBase: StepRecord | undefined;
      let serverBroke: string | undefined;
      let brokeAt: number | undefined;
      let baseBroke: string | undefined;
      let errors = 0;
      const samples: string[] = [];
      for (const rate of rates(options)) {
        const needed = ((serverBroke ? 0 : 1) + (baseBroke ? 0 : 1)) * options.stepSeconds * 1000;
        if (Date.now() + needed > deadline) {
          notes.push(`--duration reached before rate ${rate}/s`);
          break;
        }
        const row: Record<string, unknown> = { offered_rate: rate };
        if (!baseBroke) {
          const step = await baseTraffic.runStep(rate, options.stepSeconds);
          baseBroke = broken(step, options, false);
          row.baseline = { ...stepJson(step, options.stepSeconds, false), sustained: !baseBroke, broken: baseBroke };
          firstBase ??= step;
          if (!baseBroke) bestBase = step;
        }
        if (!serverBroke) {
          const before = target.sample();
          const eventsAtStart = fleet.polls.events;
          const step = await traffic.runStep(rate, options.stepSeconds);
          const after = target.sample();
          const cpu = before && after ? cpuDelta(before.cpuSeconds, after.cpuSeconds) : null;
          const events = fleet.polls.events - eventsAtStart;
          serverBroke = broken(step, options, true);
          if (serverBroke) brokeAt = rate;
          errors += step.errors;
          samples.push(...step.errorSamples);
          row.server = {
            ...stepJson(step, options.stepSeconds, true),
            sustained: !serverBroke,
            broken: serverBroke,
            server_rss_bytes: after?.rssBytes ?? null,
            server_cpu_seconds: cpu,
            // Per step, so that runs compare at the same offered rate: over the whole run, a run that got to
            // a later step, where polls bring several events each, looks cheaper per delivery.
            events_delivered: events,
            server_cpu_us_per_delivery: perDelivery(cpu, events),
          };
          first ??= step;
          if (!serverBroke) best = step;
        }
        steps.push(row);
        progress.log(stepLine(rate, row));
        if (serverBroke && baseBroke) break;
      }
      const server = serverMeter.end();
      const deliveredEvents = fleet.polls.events - eventsBefore;
      const baseUsage = baseMeter.end();
      await presence.stop();
      fleet.stop();
      if (target.kind === 'url') await fleet.deleteQueues();
      const reported = best ?? first;
      if (!best) notes.push('no step was sustained: the figures are those of the first step');
      if (!baseBroke) notes.push('the baseline did not break: its throughput is a lower bound');
      const series = (side: 'server' | 'baseline', field: string, q: 'p50' | 'p99') =>
        steps.flatMap((row) => {
          const s = row[side] as Record<string, Record<string, number>> | undefined;
          return s?.[field] ? [[row.offered_rate as number, s[field]![q]!] as [number, number]] : [];
        });
      return {
        throughput: reported?.throughput ?? 0,
        throughputUnit: 'messages sent per second (best sustained step)',
        send: reported ? reported.kinds.send.latency.summary() : null,
        delivery: reported ? reported.tally.latency.summary() : null,
        register: fleet.register.summary(),
        errors: errors + fleet.registerErrors + fleet.polls.errors + presence.stats.errors,
        errorSamples: [
          ...fleet.registerErrorSamples,
          ...fleet.polls.errorSamples,
          ...presence.errorSamples,
          ...samples,
        ].slice(0, 10),
        server,
        deliveredEvents,
        baseline: {
          throughput: bestBase?.throughput ?? 0,
          send: (firstBase ?? bestBase)?.kinds.send.latency.summary() ?? null,
          broke: baseBroke !== undefined,
          steps: [],
          usage: baseUsage,
        },
        steps,
        extra: {
          best_offered_rate: best?.offeredRate ?? null,
          first_step_server_cpu_us_per_delivery:
            ((steps[0]?.server as Record<string, unknown> | undefined)?.server_cpu_us_per_delivery as number) ?? null,
          server_broke_at: serverBroke ? { rate: brokeAt, why: serverBroke } : null,
          live_queues: fleet.clients.length,
          queues_lost: fleet.polls.queuesLost,
          presence_burst: presenceBurst,
          presence: {
            count: presence.stats.count,
            errors: presence.stats.errors,
            latency_ms: pickShort(presence.stats.latency.summary()),
          },
        },
        chart: {
          title: `chat: latency against offered load (${manifest.users.length} users, ${fleet.clients.length} queues)`,
          subtitle: best ? `best sustained step: ${best.offeredRate} msgs/s` : 'no sustained step',
          xLabel: 'offered load (messages/s)',
          yLabel: 'latency (ms, log scale)',
          logY: true,
          series: [
            { name: 'send p50', points: series('server', 'send_latency_ms', 'p50') },
            { name: 'send p99', points: series('server', 'send_latency_ms', 'p99') },
            { name: 'delivery p50', points: series('server', 'delivery_latency_ms', 'p50') },
            { name: 'delivery p99', points: series('server', 'delivery_latency_ms', 'p99') },
            { name: 'baseline send p99', points: series('baseline', 'send_latency_ms', 'p99'), dashed: true },
          ],
        },
      };
    });
  });
}

function stepLine(rate: number, row: Record<string, unknown>): string {
  const part = (name: string, s: unknown) => {
    const step = s as
      | {
          throughput_msgs_per_s: number;
          send_latency_ms: { p99: number };
          broken?: string;
          server_cpu_us_per_delivery?: number | null;
        }
      | undefined;
    if (!step) return '';
    const cpu = step.server_cpu_us_per_delivery ? `, ${step.server_cpu_us_per_delivery} µs per delivery` : '';
    return `${name} ${step.throughput_msgs_per_s}/s p99 ${step.send_latency_ms.p99} ms${cpu}${step.broken ? ` (${step.broken})` : ''}`;
  };
  return `step ${rate}/s: ${part('server', row.server)}  ${part('baseline', row.baseline)}`;
}
