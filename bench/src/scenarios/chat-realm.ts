import { Fleet } from '../fleet.js';
import { PresenceLoop } from '../presence.js';
import type { Target } from '../target.js';
import { Traffic } from '../traffic.js';
import { cpuDelta, withTarget, type RunContext } from './common.js';

/** The chat realm with its live queues, the traffic of its senders and their presence. */
export interface ChatRealm {
  target: Target;
  fleet: Fleet;
  senders: number[];
  traffic: Traffic;
  presence: PresenceLoop;
  /** What everyone's coming online cost (issue 21 line 5), from the first report until the queues were quiet. */
  presenceBurst: PresenceBurst;
}

/** The burst of page loads' presence reports: its clients, its events and the server's CPU over it. */
export interface PresenceBurst {
  clients: number;
  seconds: number;
  events_delivered: number;
  server_cpu_seconds: number | null;
  /** Server CPU per client that came online. */
  server_cpu_ms_per_client: number | null;
}

/**
 * The realm chat and overload share (one cache entry): `--users` users in
 * channels, `--queues` of them with a live queue, all online, the burst of
 * their coming online drained, presence pinging. `work` runs on it.
 */
export async function chatRealm<T>(ctx: RunContext, work: (realm: ChatRealm) => Promise<T>): Promise<T> {
  const { options, progress, notes } = ctx;
  const shape = {
    scenario: 'chat' as const,
    users: options.users[0]!,
    channels: options.channels,
    channelSize: options.channelSize,
  };
  return withTarget(ctx, shape, async (target) => {
    const { manifest } = target;
    const fleet = new Fleet(target.http, manifest, options.eventTypes);
    const queued = manifest.users.slice(0, Math.min(options.queues, manifest.users.length));
    progress.start('registering queues', queued.length);
    await fleet.add(queued, 8, progress);
    progress.stop();
    const senders = fleet.liveUsers;
    if (senders.length < 2) throw new Error(`only ${senders.length} queues could be registered`);
    const traffic = new Traffic(target.http, manifest, senders, options, options.seed, fleet);
    const presence = new PresenceLoop(fleet, options.presenceSeconds);
    const before = { sample: target.sample(), events: fleet.polls.events, at: performance.now() };
    await presence.comeOnline();
    const answered = performance.now();
    if (presence.skipped) notes.push(`presence skipped: ${presence.skipped}`);
    // In a small realm everyone coming online is an event to everyone: let that burst drain before anything is
    // measured. The burst ends at its last report's answer or its last event, whichever came later.
    if (!(await fleet.settle(2000, 300_000))) notes.push('the queues were still busy 5 minutes after setup');
    const ended = Math.max(answered, fleet.polls.lastEventAt);
    const after = target.sample();
    const cpu = before.sample && after ? cpuDelta(before.sample.cpuSeconds, after.cpuSeconds) : null;
    const clients = presence.skipped ? 0 : fleet.clients.length;
    const presenceBurst: PresenceBurst = {
      clients,
      seconds: Math.round((ended - before.at) / 100) / 10,
      events_delivered: fleet.polls.events - before.events,
      server_cpu_seconds: cpu,
      server_cpu_ms_per_client: cpu === null || clients === 0 ? null : Math.round((cpu * 1e5) / clients) / 100,
    };
    presence.start();
    return work({ target, fleet, senders, traffic, presence, presenceBurst });
  });
}
