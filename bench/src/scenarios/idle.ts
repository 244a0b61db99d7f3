import { freemem, totalmem } from 'node:os';
import { Fleet } from '../fleet.js';
import { openFileLimit } from '../proc.js';
import { Latency, pick } from '../stats.js';
import { Traffic } from '../traffic.js';
import { sleep } from '../util.js';
import { calibrate, Meter, withBaseline, withTarget, type Outcome, type RunContext } from './common.js';
import { Fanouts, waitFor } from './probe.js';

/** Sockets the harness keeps for itself besides one per queue (sends, files, the baseline). */
const FD_RESERVE = 1000;
const PROBES = 3;

/**
 * Idle clients: queues are registered batch by batch, each long-polling, up
 * to --queues or until the server stops taking them (a failed or too slow
 * registration). Memory per queue is the growth of the server's RSS over
 * the queues added; a few messages to everyone at the end prove the queues
 * are alive and say how long it takes to reach all of them.
 */
export async function idle(ctx: RunContext): Promise<Outcome> {
  const { options, progress, notes } = ctx;
  const users = options.users[0]!;
  const shape = { scenario: 'idle' as const, users, channels: 1, channelSize: users };
  const fdCap = openFileLimit() - FD_RESERVE;
  const limit = Math.min(options.queues, fdCap);
  if (limit < options.queues) notes.push(`queues capped at ${limit} by the harness's open-file limit (ulimit -n)`);
  return withTarget(ctx, shape, async (target) => {
    const { manifest } = target;
    const fleet = new Fleet(target.http, manifest, options.eventTypes);
    const meter = new Meter(() => target.sample());
    await sleep(2000); // let start-up work (recovery, first checkpoints) settle before the memory baseline
    const before = target.sample();
    meter.begin();
    const deadline = Date.now() + options.duration * 1000;
    const steps: Array<Record<string, unknown>> = [];
    let stopped: string | undefined;
    progress.start('registering idle queues', limit);
    while (fleet.clients.length < limit && !stopped) {
      if (Date.now() > deadline) {
        stopped = '--duration reached';
        break;
      }
      const from = fleet.clients.length + fleet.registerErrors;
      const batch = Array.from({ length: Math.min(options.batch, limit - fleet.clients.length) }, (_, k) => {
        return manifest.users[(from + k) % users]!;
      });
      const latency = new Latency();
      await fleet.add(batch, 16, progress, latency);
      const sample = target.sample();
      const summary = latency.summary();
      steps.push({
        queues: fleet.clients.length,
        server_rss_bytes: sample?.rssBytes ?? null,
        register_latency_ms: pick(summary),
        register_errors: fleet.registerErrors,
      });
      if (fleet.registerErrors > 0) stopped = `registration failed: ${fleet.registerErrorSamples[0]}`;
      else if (summary.p99 > options.maxRegisterMs)
        stopped = `register p99 ${summary.p99} ms > ${options.maxRegisterMs} ms`;
      else if (freemem() < totalmem() * 0.1) stopped = 'the machine has less than 10% of its memory free';
    }
    progress.stop();
    if (stopped) notes.push(`stopped adding queues: ${stopped}`);
    await sleep(5000); // let the last registrations' garbage be collected before measuring
    const after = target.sample();
    const queues = fleet.clients.length;
    const perQueue = before && after && queues > 0 ? Math.round((after.rssBytes - before.rssBytes) / queues) : null;

    const fanouts = new Fanouts(target.http, fleet, 0);
    await fanouts.series(PROBES, fleet.liveUsers, Date.now() + PROBES * waitFor(queues));
    const server = meter.end();
    fleet.stop();
    if (target.kind === 'url') await fleet.deleteQueues();

    const calibration = await withBaseline(ctx, manifest, (baseline) => {
      const traffic = new Traffic(baseline.http, manifest, fleet.liveUsers.slice(0, 1000), options, options.seed);
      return calibrate(ctx, traffic, new Meter(() => baseline.sample()));
    });
    return {
      throughput: fanouts.deliveriesPerSecond,
      throughputUnit: 'recipient deliveries per second of the probe messages to every queue',
      send: fanouts.send.summary(),
      delivery: fanouts.delivery.summary(),
      register: fleet.register.summary(),
      errors: fanouts.errors + fleet.registerErrors + fleet.polls.errors,
      errorSamples: [...fleet.registerErrorSamples, ...fleet.polls.errorSamples],
      server,
      baseline: calibration,
      steps,
      extra: {
        queues,
        queues_limit: limit,
        stopped_because: stopped ?? null,
        server_rss_before_bytes: before?.rssBytes ?? null,
        server_rss_after_bytes: after?.rssBytes ?? null,
        memory_per_queue_bytes: perQueue,
        probes: fanouts.records,
        queues_lost: fleet.polls.queuesLost,
      },
      chart: {
        title: `idle: server memory against long-polling queues (${users} users)`,
        subtitle: perQueue === null ? '' : `${queues} queues, about ${(perQueue / 1024).toFixed(1)} KiB each`,
        xLabel: 'live queues',
        yLabel: 'server RSS (MiB)',
        series: [
          {
            name: 'server RSS',
            points: [
              [0, (before?.rssBytes ?? 0) / 1048576] as [number, number],
              ...steps.map(
                (s) => [s.queues as number, ((s.server_rss_bytes as number) ?? 0) / 1048576] as [number, number],
              ),
            ],
          },
        ],
      },
    };
  });
}
