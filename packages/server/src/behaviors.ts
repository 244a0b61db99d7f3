import { channelBehavior } from '@chat/channel-actor';
import { queueBehavior } from '@chat/queue-actor';
import { realmBehavior } from '@chat/realm-actor';
import { userBehaviorWith } from '@chat/user-actor';
import { directAccessAdds } from '@chat/api';
import type { AnyBehavior, HostOptions } from '@chat/runtime';
import type { Config } from './config.js';

/** Every actor type of the service, as configured: the same on an embedded node and on every actor host. */
export function chatBehaviors(config: Config): AnyBehavior[] {
  return [
    realmBehavior,
    channelBehavior,
    // A due scheduled direct message tells restricted guests of its sender first, as a direct send.
    userBehaviorWith(directAccessAdds),
    queueBehavior({ heartbeatMs: config.heartbeatMs, idleMs: config.queueIdleMs, maxEvents: config.queueMaxEvents }),
  ];
}

/** The host settings that come from the configuration, whatever the deployment. */
export function hostSettings(
  config: Config,
): Pick<
  HostOptions,
  | 'behaviors'
  | 'shardCount'
  | 'mailboxCapacity'
  | 'passivateAfterMs'
  | 'checkpointEvery'
  | 'checkpointPerActor'
  | 'checkpointMaxRecords'
  | 'checkpointAfterMs'
> {
  return {
    behaviors: chatBehaviors(config),
    shardCount: config.shardCount,
    mailboxCapacity: config.mailboxCapacity,
    passivateAfterMs: config.passivateAfterMs,
    checkpointEvery: config.checkpointEvery,
    checkpointPerActor: config.checkpointPerActor,
    checkpointMaxRecords: config.checkpointMaxRecords,
    checkpointAfterMs: config.checkpointAfterMs,
  };
}
