import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

export const SCENARIOS = ['chat', 'fanout', 'idle', 'register', 'overload'] as const;
export type Scenario = (typeof SCENARIOS)[number];

/** Every knob of a run; each has a command-line flag of the same name in kebab-case. */
export interface Options {
  /** `embedded`, `cluster` or the base URL of a running server. */
  target: string;
  scenario: Scenario;
  /** Realm sizes; only `register` measures more than one. */
  users: number[];
  channels: number;
  channelSize: number;
  /** Live event queues (chat, fanout: one per user at most; idle: spread over the users). */
  queues: number;
  startRate: number;
  /** Added to the rate at each step; when unset the rate is multiplied by stepFactor. */
  stepRate: number | undefined;
  stepFactor: number;
  maxRate: number;
  stepSeconds: number;
  warmupSeconds: number;
  /** Bounds the measuring part of a run (setup excluded), in seconds. */
  duration: number;
  maxP99Ms: number;
  maxDeliveryP99Ms: number;
  dmRatio: number;
  editRatio: number;
  reactRatio: number;
  readRatio: number;
  presenceSeconds: number;
  messages: number;
  batch: number;
  registers: number;
  maxRegisterMs: number;
  eventTypes: 'all' | 'messages';
  adminEmail: string;
  adminKey: string | undefined;
  setupConcurrency: number;
  cacheDir: string;
  noCache: boolean;
  resultsDir: string;
  baselineSeconds: number;
  serverPid: number | undefined;
  /** `--target cluster`: how many edges and actor hosts scripts/cluster.sh starts. */
  edges: number;
  actorHosts: number;
  seed: number;
  quiet: boolean;
  /** overload: the sustainable chat rate (msgs/s); 0: found by a quick stepped run first. */
  rate: number;
  /** overload: the offered rate is this many times the sustainable one... */
  overloadFactor: number;
  /** ... for this long (s). */
  overloadSeconds: number;
  /** overload: how long the quiet latencies are measured before the load, and recovery watched after it (s). */
  quietSeconds: number;
  recoverySeconds: number;
  /** overload: sends per second of the probe that runs throughout, whose latency tells when the server is back. */
  probeRate: number;
  /** overload: CPU-burning processes started beside the server for the measured part (a busy neighbour). */
  busyCores: number;
}

const BENCH_DIR = fileURLToPath(new URL('../../../', import.meta.url));

/** What a scenario means when the command line does not say (the sizes). */
const SCENARIO_DEFAULTS: Record<Scenario, Partial<Options>> = {
  chat: { users: [1000], channels: 100, channelSize: 50, queues: 1000, duration: 600, eventTypes: 'all' },
  fanout: { users: [10_000], channels: 1, channelSize: 10_000, queues: 10_000, duration: 300, eventTypes: 'messages' },
  idle: { users: [1000], channels: 1, channelSize: 1000, queues: 20_000, duration: 900, eventTypes: 'messages' },
  register: { users: [1000, 10_000], channels: 100, channelSize: 50, queues: 0, duration: 600, eventTypes: 'all' },
  // The chat realm; a stepped run from 20 msgs/s finds the sustainable rate unless --rate says it, with
  // chat's steps (10 s, x 1.25): in steps of 5 s a p99 is the slowest send or two, and one stall broke them.
  overload: {
    users: [1000],
    channels: 100,
    channelSize: 50,
    queues: 1000,
    duration: 600,
    eventTypes: 'all',
    startRate: 20,
    stepFactor: 1.25,
    stepSeconds: 10,
  },
};

const NUMBER_FLAGS = {
  channels: 'channels',
  'channel-size': 'channelSize',
  queues: 'queues',
  'start-rate': 'startRate',
  'step-rate': 'stepRate',
  'step-factor': 'stepFactor',
  'max-rate': 'maxRate',
  'step-seconds': 'stepSeconds',
  'warmup-seconds': 'warmupSeconds',
  duration: 'duration',
  'max-p99-ms': 'maxP99Ms',
  'max-delivery-p99-ms': 'maxDeliveryP99Ms',
  'dm-ratio': 'dmRatio',
  'edit-ratio': 'editRatio',
  'react-ratio': 'reactRatio',
  'read-ratio': 'readRatio',
  'presence-seconds': 'presenceSeconds',
  messages: 'messages',
  batch: 'batch',
  registers: 'registers',
  'max-register-ms': 'maxRegisterMs',
  'setup-concurrency': 'setupConcurrency',
  'baseline-seconds': 'baselineSeconds',
  'server-pid': 'serverPid',
  edges: 'edges',
  'actor-hosts': 'actorHosts',
  seed: 'seed',
  rate: 'rate',
  'overload-factor': 'overloadFactor',
  'overload-seconds': 'overloadSeconds',
  'quiet-seconds': 'quietSeconds',
  'recovery-seconds': 'recoverySeconds',
  'probe-rate': 'probeRate',
  'busy-cores': 'busyCores',
} as const satisfies Record<string, keyof Options>;

export const USAGE = `Usage: npm run bench -- --target embedded|cluster|URL --scenario ${SCENARIOS.join('|')} [options]

  --users N[,N...]        realm size(s) (register measures each size)
  --channels N --channel-size N --queues N
  --start-rate R --step-rate R | --step-factor F --max-rate R --step-seconds S --warmup-seconds S
  --duration S            bounds the measuring part of the run
  --max-p99-ms MS --max-delivery-p99-ms MS   when a step counts as broken
  --dm-ratio --edit-ratio --react-ratio --read-ratio F   --presence-seconds S (0: no presence)
  --messages N (fanout)  --batch N (idle)  --registers N --max-register-ms MS
  --event-types all|messages   what the simulated clients register for
  --admin-email E --admin-key K   administrator of a URL target (default: dev login of iago)
  --setup-concurrency N --cache-dir DIR --no-cache --results-dir DIR
  --baseline-seconds S --server-pid PID (a URL target's process, for memory and CPU) --seed N --quiet
  --edges N --actor-hosts N   the processes of --target cluster (default 2 and 3)
  overload: --rate R (sustainable; default: found by a stepped run) --overload-factor F (3) --overload-seconds S (60)
            --quiet-seconds S (10) --recovery-seconds S (20) --probe-rate R (5) --busy-cores N (0)
See bench/README.md.`;

function positive(name: string, raw: string): number {
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0)
    throw new UsageError(`--${name} must be a non-negative number, got '${raw}'`);
  return value;
}

export class UsageError extends Error {}

export function parseOptions(argv: string[], env: NodeJS.ProcessEnv = process.env): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      target: { type: 'string', default: 'embedded' },
      scenario: { type: 'string', default: 'chat' },
      users: { type: 'string' },
      'event-types': { type: 'string' },
      'admin-email': { type: 'string' },
      'admin-key': { type: 'string' },
      'cache-dir': { type: 'string' },
      'results-dir': { type: 'string' },
      'no-cache': { type: 'boolean', default: false },
      quiet: { type: 'boolean', default: false },
      ...Object.fromEntries(Object.keys(NUMBER_FLAGS).map((flag) => [flag, { type: 'string' as const }])),
    },
  });
  const scenario = values.scenario as Scenario;
  if (!SCENARIOS.includes(scenario)) throw new UsageError(`--scenario must be one of ${SCENARIOS.join(', ')}`);
  const options = defaultOptions(scenario, env);
  options.target = values.target as string;
  for (const [flag, key] of Object.entries(NUMBER_FLAGS)) {
    const raw = values[flag as keyof typeof values];
    if (typeof raw === 'string') (options as unknown as Record<string, number>)[key] = positive(flag, raw);
  }
  if (typeof values.users === 'string') {
    options.users = values.users.split(',').map((n) => Math.round(positive('users', n)));
    // The realm shape follows the size unless told otherwise: one channel of everyone for fanout and idle.
    if (scenario === 'fanout' || scenario === 'idle') options.channelSize = Math.max(...options.users);
    const queuesGiven = (values as Record<string, unknown>).queues !== undefined;
    if ((scenario === 'fanout' || scenario === 'chat' || scenario === 'overload') && !queuesGiven)
      options.queues = options.users[0]!;
  }
  const eventTypes = values['event-types'];
  if (eventTypes !== undefined) {
    if (eventTypes !== 'all' && eventTypes !== 'messages')
      throw new UsageError('--event-types must be all or messages');
    options.eventTypes = eventTypes;
  }
  if (typeof values['admin-email'] === 'string') options.adminEmail = values['admin-email'];
  if (typeof values['admin-key'] === 'string') options.adminKey = values['admin-key'];
  if (typeof values['cache-dir'] === 'string') options.cacheDir = resolve(values['cache-dir']);
  if (typeof values['results-dir'] === 'string') options.resultsDir = resolve(values['results-dir']);
  options.noCache = values['no-cache'] === true;
  options.quiet = values.quiet === true;
  if (options.users.length === 0 || options.users.some((n) => n < 2)) throw new UsageError('--users must be >= 2');
  if (options.stepFactor <= 1 && !options.stepRate) throw new UsageError('--step-factor must be > 1');
  if (options.edges < 1 || options.actorHosts < 1) throw new UsageError('--edges and --actor-hosts must be >= 1');
  return options;
}

/** The full option set of a scenario with nothing given; the smoke test starts from it too. */
export function defaultOptions(scenario: Scenario, env: NodeJS.ProcessEnv = process.env): Options {
  const cacheRoot = env.TEAM_CHAT_CACHE || join(homedir(), '.cache', 'team-chat');
  return {
    target: 'embedded',
    scenario,
    users: [1000],
    channels: 100,
    channelSize: 50,
    queues: 1000,
    startRate: 50,
    stepRate: undefined,
    stepFactor: 1.25,
    maxRate: 20_000,
    stepSeconds: 10,
    warmupSeconds: 3,
    duration: 600,
    maxP99Ms: 100,
    maxDeliveryP99Ms: 500,
    dmRatio: 0.2,
    editRatio: 0.02,
    reactRatio: 0.05,
    readRatio: 0.1,
    presenceSeconds: 60,
    messages: 20,
    batch: 1000,
    registers: 100,
    maxRegisterMs: 5000,
    eventTypes: 'all',
    adminEmail: 'iago@zulip.com',
    adminKey: undefined,
    setupConcurrency: 4,
    cacheDir: join(cacheRoot, 'bench'),
    noCache: false,
    resultsDir: join(BENCH_DIR, 'results'),
    baselineSeconds: 60,
    serverPid: undefined,
    edges: 2,
    actorHosts: 3,
    seed: 1,
    quiet: false,
    rate: 0,
    overloadFactor: 3,
    overloadSeconds: 60,
    quietSeconds: 10,
    recoverySeconds: 20,
    probeRate: 5,
    busyCores: 0,
    ...SCENARIO_DEFAULTS[scenario],
  };
}
