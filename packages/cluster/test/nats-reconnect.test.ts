import test from 'ava';
import { NoResponders } from '@chat/runtime';
import { bytes, eventually, freshNamespace, OwnNatsServer, RecordingLogger, text, Transports } from './nats-support.js';

// A nats-server of this file's own, killed and restarted here; the shared one is never touched.
let server: OwnNatsServer | undefined;
const transports = new Transports();
test.after.always(async () => {
  await transports.closeAll();
  await server?.kill();
});

test('a NATS server restart is survived: fast failures during the outage, subscriptions back after', async (t) => {
  server = await OwnNatsServer.start();
  const namespace = freshNamespace();
  const log = new RecordingLogger();
  const host = await transports.connect(server.url, namespace, log);
  const edge = await transports.connect(server.url, namespace, log);
  host.subscribe('actor.user.1', (msg) => msg.respond?.(bytes(`ok:${text(msg.data)}`)), { queue: 'hosts' });
  const told: string[] = [];
  host.subscribe('host.h1.fanout', (msg) => told.push(text(msg.data)));
  await host.flush();
  t.is(text(await edge.request('actor.user.1', bytes('before'), 10_000)), 'ok:before');

  await server.kill();
  await eventually(async () => !edge.isConnected && !host.isConnected);
  // A long timeout on purpose: the request must fail because the connection is down, not by timing out.
  const during = await t.throwsAsync(edge.request('actor.user.1', bytes('during'), 600_000), {
    instanceOf: NoResponders,
  });
  t.regex(during?.message ?? '', /not connected to NATS/);
  const droppedBefore = edge.dropped;
  edge.publish('host.h1.fanout', bytes('lost'));
  t.is(edge.dropped, droppedBefore + 1);
  t.true(log.lines.some((l) => l.level === 'warn' && /disconnected/.test(l.msg)));

  await server.start();
  await eventually(async () => edge.isConnected && host.isConnected);
  // The host's subscriptions were re-created by the reconnect; once the server has them, requests succeed again.
  await eventually(async () => {
    try {
      return text(await edge.request('actor.user.1', bytes('after'), 5_000)) === 'ok:after';
    } catch (err) {
      if (err instanceof NoResponders) return false;
      throw err;
    }
  });
  await host.flush();
  edge.publish('host.h1.fanout', bytes('after'));
  await eventually(async () => told.includes('after'));
  t.false(told.includes('lost'));
  t.true(log.lines.some((l) => l.level === 'info' && /reconnected/.test(l.msg)));

  // Closing during an outage does not wait for a server that may never come back.
  await server.kill();
  await eventually(async () => !edge.isConnected);
  await edge.close();
  await t.throwsAsync(edge.request('actor.user.1', bytes('closed'), 1000), { message: /closed/ });
});
