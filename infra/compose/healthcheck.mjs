#!/usr/bin/env node
// Container health checks of the app services in docker-compose.yml (node:20-slim has no curl or wget).
//
//   node infra/compose/healthcheck.mjs edge
//     healthy when GET http://127.0.0.1:$PORT/api/v1/server_settings answers 200: the edge is up
//     and its realm's actor answered through NATS (so the default realm must exist: in production
//     mode create it with the admin command first).
//
//   node infra/compose/healthcheck.mjs actor-host <nats monitoring URL>
//     healthy when the NATS server lists a subscription to `<CLUSTER_NAMESPACE>.host.<HOST_ID>.fanout`:
//     this host has started (recovered what it took) and is connected and serving. An actor host has
//     no HTTP port, so the NATS server's monitoring endpoint (/connz) is what can vouch for it.
const [role, monitorUrl] = process.argv.slice(2);
const get = async (url) => {
  const response = await fetch(url, { signal: AbortSignal.timeout(4000) });
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return response.json();
};

async function check() {
  if (role === 'edge') {
    await get(`http://127.0.0.1:${process.env.PORT || 9991}/api/v1/server_settings`);
    return;
  }
  if (role === 'actor-host' && monitorUrl) {
    const subject = `${process.env.CLUSTER_NAMESPACE || 'chat'}.host.${process.env.HOST_ID}.fanout`;
    const connz = await get(`${monitorUrl}/connz?subs=1&limit=100000`);
    const serving = connz.connections.some((c) => (c.subscriptions_list ?? []).includes(subject));
    if (!serving) throw new Error(`nobody subscribes to ${subject} yet`);
    return;
  }
  throw new Error('usage: healthcheck.mjs edge | actor-host <nats monitoring url>');
}

check().then(
  () => process.exit(0),
  (err) => {
    console.error(`unhealthy: ${err.message}`);
    process.exit(1);
  },
);
