import { Fleet } from '../fleet.js';
import { PresenceLoop } from '../presence.js';
import type { Target } from '../target.js';
import { Traffic } from '../traffic.js';
import { withTarget, type RunContext } from './common.js';

/** The chat realm with its live queues, the traffic of its senders and their presence. */
export interface ChatRealm {
  target: Target;
  fleet: Fleet;
  senders: number[];
  traffic: Traffic;
  presence: PresenceLoop;
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
    await presence.comeOnline();
    if (presence.skipped) notes.push(`presence skipped: ${presence.skipped}`);
    // Everyone coming online is an event to everyone: let that burst drain before anything is measured.
    if (!(await fleet.settle(2000, 300_000))) notes.push('the queues were still busy 5 minutes after setup');
    presence.start();
    return work({ target, fleet, senders, traffic, presence });
  });
}
