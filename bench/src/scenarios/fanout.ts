import { Fleet } from '../fleet.js';
import { Traffic } from '../traffic.js';
import { calibrate, Meter, metric, withBaseline, withTarget, type Outcome, type RunContext } from './common.js';
import { Fanouts } from './probe.js';

/**
 * One big channel: every member has a live queue; messages go out one at a
 * time and each is timed from its send to its last recipient's poll.
 */
export async function fanout(ctx: RunContext): Promise<Outcome> {
  const { options, progress, notes } = ctx;
  const users = options.users[0]!;
  const shape = { scenario: 'fanout' as const, users, channels: 1, channelSize: users };
  return withTarget(ctx, shape, async (target) => {
    const { manifest } = target;
    const fleet = new Fleet(target.http, manifest, options.eventTypes);
    const queued = manifest.users.slice(0, Math.min(options.queues, users));
    progress.start('registering queues', queued.length);
    await fleet.add(queued, 16, progress);
    progress.stop();
    const senders = fleet.liveUsers;
    const fanouts = new Fanouts(target.http, fleet, 0);
    await fanouts.one(senders[0]!, false); // warm-up, not recorded
    const meter = new Meter(() => target.sample());
    const snapshotsBefore = await metric(target.url, 'chat_checkpoint_snapshots');
    meter.begin();
    const eventsBefore = fleet.polls.events;
    const deadline = Date.now() + options.duration * 1000;
    progress.start('fanning out', options.messages);
    await fanouts.series(options.messages, senders, deadline, (r) =>
      progress.increment(`last ${r.last_delivery_ms} ms`),
    );
    progress.stop();
    const server = meter.end();
    const deliveredEvents = fleet.polls.events - eventsBefore;
    // Checkpoints are taken by the host's sweep: the snapshots counted here are those of the sweeps during the run.
    const snapshotsAfter = await metric(target.url, 'chat_checkpoint_snapshots');
    const snapshots =
      snapshotsBefore === undefined || snapshotsAfter === undefined ? null : snapshotsAfter - snapshotsBefore;
    fleet.stop();
    if (fanouts.records.length < options.messages)
      notes.push(`--duration reached after ${fanouts.records.length} messages`);
    if (target.kind === 'url') await fleet.deleteQueues();

    const calibration = await withBaseline(ctx, manifest, (baseline) => {
      const traffic = new Traffic(baseline.http, manifest, senders.slice(0, 1000), options, options.seed);
      return calibrate(ctx, traffic, new Meter(() => baseline.sample()));
    });
    return {
      throughput: fanouts.deliveriesPerSecond,
      throughputUnit: 'recipient deliveries per second while fanning out',
      send: fanouts.send.summary(),
      delivery: fanouts.delivery.summary(),
      register: fleet.register.summary(),
      errors: fanouts.errors + fleet.registerErrors + fleet.polls.errors,
      errorSamples: [
        ...fleet.registerErrorSamples,
        ...fleet.polls.errorSamples,
        ...fanouts.records.flatMap((r) => r.error ?? []),
      ],
      server,
      deliveredEvents,
      baseline: calibration,
      steps: fanouts.records,
      extra: {
        live_queues: fleet.clients.length,
        fanout_last_delivery_ms: fanouts.last.summary(),
        queues_lost: fleet.polls.queuesLost,
        checkpoint_snapshots: snapshots,
        snapshots_per_delivery:
          snapshots === null || !deliveredEvents ? null : Math.round((snapshots / deliveredEvents) * 1000) / 1000,
      },
      chart: {
        title: `fanout: one channel, ${fleet.clients.length} live queues`,
        subtitle: `${fanouts.records.length} messages; last delivery p50 ${fanouts.last.summary().p50} ms`,
        xLabel: 'latency from send (ms, log scale)',
        yLabel: 'percentile',
        logX: true,
        series: [
          { name: 'each delivery', points: fanouts.delivery.cdf() },
          { name: 'last delivery', points: fanouts.last.cdf() },
          { name: 'send', points: fanouts.send.cdf(), dashed: true },
        ],
      },
    };
  });
}
