import test from 'ava';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { envNamesIn, envNamesReadBy } from './env-scan.js';
import { TestServer } from './support.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const EDGES = ['edge-1', 'edge-2'];
const ACTOR_HOSTS = ['actor-host-1', 'actor-host-2', 'actor-host-3'];
const ENGINES = ['nats', 'kafka', 'cassandra'];
const APPS = [...EDGES, ...ACTOR_HOSTS];
/** What the cluster code cannot start without, on every app process (cluster-config.ts). */
const CLUSTER_REQUIRED = ['NATS_URL', 'KAFKA_BROKERS', 'CASSANDRA_CONTACT_POINTS', 'CLUSTER_NAMESPACE', 'SHARD_COUNT'];

interface Service {
  build?: unknown;
  image?: string;
  environment?: Record<string, string | number | null> | string[];
  healthcheck?: { test?: string | string[]; disable?: boolean };
  depends_on?: string[] | Record<string, { condition?: string }>;
  ports?: (string | number)[];
  volumes?: string[];
}

const compose = async () =>
  parse(await readFile(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
    services: Record<string, Service>;
  };

/** A service's environment as a map, whichever of the two compose forms it uses. */
function environment(service: Service): Map<string, string> {
  const env = service.environment ?? {};
  if (Array.isArray(env)) return new Map(env.map((line) => [line.split('=')[0]!, line.split('=').slice(1).join('=')]));
  return new Map(Object.entries(env).map(([name, value]) => [name, String(value ?? '')]));
}

const healthTest = (service: Service) => [service.healthcheck?.test ?? []].flat().join(' ');

test('the scanner finds the names code reads, and not those in comments', (t) => {
  const source = [
    "const a = process.env.ALPHA ?? env['BETA'];",
    'if (env.GAMMA_2) integer(env, "DELTA", 1); required(env, \'EPSILON\');',
    '/** env.NOT_READ */',
    '  // process.env.NOR_THIS',
    'const lower = env.notAName; const other = environment.ZETA;',
  ].join('\n');
  t.deepEqual([...envNamesIn(source)].sort(), ['ALPHA', 'BETA', 'DELTA', 'EPSILON', 'GAMMA_2']);
});

test('the deployment has its engines, three actor hosts, two edges and one proxy on 9991', async (t) => {
  const { services } = await compose();
  for (const name of [...ENGINES, ...APPS, 'proxy']) t.truthy(services[name], `service ${name}`);
  t.is(Object.keys(services).filter((name) => environment(services[name]!).get('CHAT_ROLE') === 'edge').length, 2);
  t.true((services.proxy!.ports ?? []).some((p) => /^(\d+\.\d+\.\d+\.\d+:)?9991:9991$/.test(String(p))));
  t.regex(healthTest(services.nats!), /-js|healthz/);
  t.true([services.nats!.image, ...[(services.nats as { command?: string[] }).command ?? []].flat()].includes('-js'));
  t.regex(services.kafka!.image ?? '', /^apache\/kafka:3\.9\./);
  t.regex(services.cassandra!.image ?? '', /^cassandra:5\.0/);
  const haproxy = await readFile(join(ROOT, 'infra/compose/haproxy.cfg'), 'utf8');
  for (const edge of EDGES) t.regex(haproxy, new RegExp(`server ${edge} ${edge}:9991`));
});

test('every service has a health check, and waits for what it needs to be healthy', async (t) => {
  const { services } = await compose();
  for (const [name, service] of Object.entries(services)) {
    t.truthy(healthTest(service), `${name} has a healthcheck`);
    t.not(service.healthcheck?.disable, true, name);
    const deps = service.depends_on ?? {};
    t.false(Array.isArray(deps), `${name}: depends_on with conditions`);
    for (const [dep, { condition }] of Object.entries(deps)) t.is(condition, 'service_healthy', `${name} → ${dep}`);
  }
  const depsOf = (name: string) => Object.keys(services[name]!.depends_on ?? {});
  for (const app of APPS) for (const engine of ENGINES) t.true(depsOf(app).includes(engine), `${app} → ${engine}`);
  for (const edge of EDGES) for (const host of ACTOR_HOSTS) t.true(depsOf(edge).includes(host), `${edge} → ${host}`);
  for (const edge of EDGES) t.true(depsOf('proxy').includes(edge));
  for (const edge of EDGES) t.regex(healthTest(services[edge]!), /healthcheck\.mjs edge/);
  for (const host of ACTOR_HOSTS)
    t.regex(healthTest(services[host]!), /healthcheck\.mjs actor-host http:\/\/nats:8222/);
});

test('app services run the image of the Dockerfile with their role', async (t) => {
  const { services } = await compose();
  for (const name of APPS) {
    t.truthy(services[name]!.build, `${name} builds the Dockerfile`);
    t.is(environment(services[name]!).get('CHAT_ROLE'), name.startsWith('edge') ? 'edge' : 'actor-host', name);
  }
  const dockerfile = await readFile(join(ROOT, 'Dockerfile'), 'utf8');
  t.regex(dockerfile, /^FROM node:20-slim/m);
  t.regex(dockerfile, /npm ci/);
  t.regex(dockerfile, /npm run build/);
  // Node's own flags (the V8 heap settings `npm start` uses) may stand before the script.
  t.regex(dockerfile, /^CMD \["node", (?:"--[^"]+", )*"packages\/server\/dist\/src\/main\.js", "start"\]/m);
});

test('app services set only variables the code reads, and all the cluster needs', async (t) => {
  const { services } = await compose();
  const read = await envNamesReadBy([join(ROOT, 'packages/server/src'), join(ROOT, 'packages/cluster/src')]);
  const unread: string[] = [];
  for (const name of APPS) {
    const env = environment(services[name]!);
    for (const variable of env.keys()) if (!read.has(variable)) unread.push(`${name}: ${variable}`);
    for (const variable of CLUSTER_REQUIRED) t.truthy(env.get(variable), `${name} sets ${variable}`);
    if (ACTOR_HOSTS.includes(name)) t.truthy(env.get('HOST_ID'), `${name} sets HOST_ID`);
  }
  t.deepEqual(unread, [], `set but read by no code in packages/server/src or packages/cluster/src`);
  // The processes must agree on these, or they would not find each other's shards.
  for (const variable of ['CLUSTER_NAMESPACE', 'SHARD_COUNT', 'NATS_URL', 'KAFKA_BROKERS']) {
    t.is(new Set(APPS.map((name) => environment(services[name]!).get(variable))).size, 1, variable);
  }
  const hostIds = ACTOR_HOSTS.map((name) => environment(services[name]!).get('HOST_ID'));
  t.is(new Set(hostIds).size, ACTOR_HOSTS.length, 'HOST_IDs are distinct');
  for (const name of EDGES) t.is(environment(services[name]!).get('BIND_HOST'), '0.0.0.0');
});

test('the edge health check passes against a running server and fails without one', async (t) => {
  const server = await TestServer.start();
  t.teardown(() => server.stop());
  const run = (port: string) =>
    promisify(execFile)(process.execPath, [join(ROOT, 'infra/compose/healthcheck.mjs'), 'edge'], {
      env: { ...process.env, PORT: port },
    });
  await t.notThrowsAsync(run(new URL(server.server.url).port));
  await t.throwsAsync(run('1')); // nothing listens on port 1
});
