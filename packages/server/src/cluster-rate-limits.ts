import { NatsRateLimits } from '@chat/cluster';
import type { RateLimitSettings, RateLimitStores } from '@chat/edge';
import type { Logger } from '@chat/runtime';
import type { ClusterConfig } from './cluster-config.js';

export interface SharedRateLimits {
  stores: RateLimitStores;
  close(): Promise<void>;
}

/**
 * The rate limit counts every edge of a cluster shares: JetStream key-value
 * buckets of the cluster's namespace on its NATS server, one per kind, each
 * keeping a key as long as its kind's window and at most RATE_LIMIT_MAX_KEYS
 * keys (the oldest windows go first, as in one edge's memory).
 */
export async function openSharedRateLimits(
  settings: RateLimitSettings,
  cluster: ClusterConfig,
  log: Logger,
): Promise<SharedRateLimits> {
  const limits = await NatsRateLimits.connect({
    servers: cluster.natsUrl,
    namespace: cluster.namespace,
    name: `edge-${process.pid}-rate-limits`,
    log,
  });
  try {
    const kind = (rule: { windowMs: number }) => ({ windowMs: rule.windowMs, maxKeys: settings.maxKeys });
    const stores: RateLimitStores = {
      user: await limits.store('user', kind(settings.user)),
      ip: await limits.store('ip', kind(settings.ip)),
      login: await limits.store('login', kind(settings.login)),
    };
    return { stores, close: () => limits.close() };
  } catch (err) {
    await limits.close();
    throw err;
  }
}
