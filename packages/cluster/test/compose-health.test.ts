import test from 'ava';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freshNamespace, OwnNatsServer, Transports } from './nats-support.js';

// The actor hosts' health check of docker-compose.yml asks the NATS server's monitoring endpoint,
// which the shared server's address does not give; so this file runs a nats-server of its own.
const SCRIPT = fileURLToPath(new URL('../../../../infra/compose/healthcheck.mjs', import.meta.url));
let server: OwnNatsServer | undefined;
const transports = new Transports();
test.after.always(async () => {
  await transports.closeAll();
  await server?.kill();
});

test('an actor host is healthy once it serves its fan-out subject on NATS', async (t) => {
  server = await OwnNatsServer.start({ monitoring: true });
  const monitor = `http://127.0.0.1:${server.monitorPort}`;
  const namespace = freshNamespace();
  const check = (hostId: string) =>
    promisify(execFile)(process.execPath, [SCRIPT, 'actor-host', monitor], {
      env: { ...process.env, HOST_ID: hostId, CLUSTER_NAMESPACE: namespace },
    });
  await t.throwsAsync(check('host-a'), { message: /nobody subscribes/ });

  const host = await transports.connect(server.url, namespace);
  host.subscribe('host.host-a.fanout', () => {}); // what ActorHost.start subscribes with a hostId
  await host.flush();
  await t.notThrowsAsync(check('host-a'));
  await t.throwsAsync(check('host-b'), { message: /nobody subscribes/ });
  // The same host id in another namespace (another cluster on the server) does not count.
  const other = await transports.connect(server.url, freshNamespace());
  other.subscribe('host.host-b.fanout', () => {});
  await other.flush();
  await t.throwsAsync(check('host-b'), { message: /nobody subscribes/ });
});
