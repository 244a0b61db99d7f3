import { createHash } from 'node:crypto';
import { spreadOver } from '@chat/testkit';
import { readClusterConfig, startLocalCluster, type Config, type RunningServer } from '../src/index.js';

/**
 * `CHAT_TEST_TARGET=cluster` runs the test files against a cluster instead
 * of the embedded server: each file gets its own namespace on the engines
 * that `npm test` started (their addresses in the environment), three actor
 * hosts and two edges in the test process, and its requests alternate
 * between the edges.
 */
export const onCluster = process.env.CHAT_TEST_TARGET === 'cluster';

/**
 * The namespace follows the data folder, so a test that stops its server and
 * starts it again on the same folder finds its cluster's data again; such a
 * namespace (`keep`) outlives the server, others are dropped with it.
 */
export async function startClusterServer(config: Config, keep: boolean): Promise<RunningServer> {
  const namespace = `t_${createHash('sha256').update(config.dataDir).digest('hex').slice(0, 12)}`;
  const cluster = readClusterConfig({ ...process.env, CLUSTER_NAMESPACE: namespace, LEASE_MS: '3000' });
  const local = await startLocalCluster(config, cluster);
  const unspread = spreadOver(local.urls);
  const [first] = local.edges;
  return {
    url: first!.url,
    node: first!.node,
    async close() {
      unspread();
      await local.close(!keep);
    },
  };
}
