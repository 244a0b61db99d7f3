import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  LeaseTable,
  NatsTransport,
  openKeyspace,
  rendezvous,
  SHARD_MAP_SUBJECT,
  type Announcement,
  type Lease,
} from '@chat/cluster';
import { createLogger, DEFAULT_ADMISSION } from '@chat/edge';
import { decode } from '@chat/protocol';
import { ChatClient } from '@chat/testkit';
import {
  connectEdgeBackend,
  dropNamespace,
  loadConfig,
  readClusterConfig,
  startServer,
  type ClusterConfig,
  type Config,
  type RunningServer,
} from '../src/index.js';
import { MAIN, TEST_ADMISSION, tempDir } from './support.js';

export const LEASE_MS = 3000;

/**
 * The edge's admission: as every test server's (TEST_ADMISSION), it refuses no work for slowness, which a
 * 2-core machine running three hosts, the engines and the test brings (the defaults refused a third of the
 * failover test's probes, for seconds after the shards had moved). But a request's asks end after the
 * default 10 s, as in production: an ask stranded on a killed host waits that long.
 */
const admission = { ...TEST_ADMISSION, deadlineMs: DEFAULT_ADMISSION.deadlineMs };

/** An actor host as a real process, so a test can SIGKILL or SIGSTOP it. */
export class HostProcess {
  readonly child: ChildProcess;
  constructor(
    readonly id: string,
    readonly logPath: string,
    env: NodeJS.ProcessEnv,
  ) {
    this.child = spawn(process.execPath, [MAIN, 'start'], {
      env: { ...process.env, ...env, CHAT_ROLE: 'actor-host', HOST_ID: id, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out = createWriteStream(logPath);
    this.child.stdout!.pipe(out);
    this.child.stderr!.pipe(out);
  }

  signal(signal: NodeJS.Signals): void {
    process.kill(this.child.pid!, signal);
  }

  async log(): Promise<string> {
    return readFile(this.logPath, 'utf8');
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill('SIGCONT');
    this.child.kill('SIGKILL');
    await new Promise((resolve) => this.child.once('exit', resolve));
  }
}

/**
 * Watches ownership while a test runs: every host's announcements of the
 * shards it may act for (with the wall-clock window of its lease), and the
 * lease table itself. At no time may two hosts act for one shard.
 */
export class OwnershipChecker {
  private readonly windows = new Map<number, Array<{ host: string; epoch: number; since: number; until: number }>>();
  private readonly epochs = new Map<number, number>();
  readonly problems: string[] = [];
  leaseReads = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    transport: NatsTransport,
    private readonly leases: LeaseTable,
  ) {
    transport.subscribe(SHARD_MAP_SUBJECT, (msg) => {
      const { host, at, shards } = decode<Announcement>(msg.data);
      // A shard the host no longer lists was given up by `at` at the latest.
      for (const [shard, list] of this.windows) {
        for (const w of list) {
          const listed = shards.some((s) => s.shard === shard && s.epoch === w.epoch);
          if (w.host === host && !listed && w.until > at) w.until = at;
        }
      }
      for (const { shard, epoch, since, until } of shards) {
        const list = this.windows.get(shard) ?? [];
        const mine = list.find((w) => w.host === host && w.epoch === epoch);
        if (mine) mine.until = Math.max(mine.until, until);
        else list.push({ host, epoch, since, until });
        this.windows.set(shard, list);
      }
    });
    this.timer = setInterval(() => void this.readLeases(), 250);
  }

  private async readLeases(): Promise<void> {
    let rows: Lease[];
    try {
      rows = await this.leases.list();
    } catch {
      return; // a read during an engine restart; the next one will do
    }
    this.leaseReads++;
    for (const row of rows) {
      const seen = this.epochs.get(row.shard) ?? 0;
      if (row.epoch < seen)
        this.problems.push(`shard ${row.shard}: lease epoch went back from ${seen} to ${row.epoch}`);
      this.epochs.set(row.shard, Math.max(seen, row.epoch));
    }
  }

  /** Every pair of different owners' windows of a shard that overlap. */
  overlaps(): string[] {
    const found: string[] = [];
    for (const [shard, list] of this.windows) {
      for (const a of list)
        for (const b of list) {
          if (a.epoch >= b.epoch || a.host === b.host) continue;
          if (a.until > b.since)
            found.push(`shard ${shard}: ${a.host}@${a.epoch} until ${a.until} > ${b.host}@${b.epoch} since ${b.since}`);
        }
    }
    return found;
  }

  get announcedOwners(): number {
    return [...this.windows.values()].reduce((n, list) => n + list.length, 0);
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

export interface ProcessCluster {
  config: Config;
  cluster: ClusterConfig;
  hosts: HostProcess[];
  edge: RunningServer;
  client: ChatClient;
  leases: LeaseTable;
  checker: OwnershipChecker;
  /** The host that holds `shard` now, by the lease table. */
  ownerOf(shard: number): Promise<string | undefined>;
  login(email: string): Promise<ChatClient>;
  close(): Promise<void>;
}

/** Three actor host processes (leases of LEASE_MS), settled on their shards, and an edge in this process. */
export async function startProcessCluster(hostCount = 3): Promise<ProcessCluster> {
  const dir = await tempDir('cluster-faults');
  const namespace = `f_${randomBytes(6).toString('hex')}`;
  const env = { ...process.env, CLUSTER_NAMESPACE: namespace, LEASE_MS: String(LEASE_MS) };
  const cluster = readClusterConfig(env);
  const config = loadConfig({}, { port: 0, dataDir: dir, logLevel: 'silent', rateLimits: undefined, admission });
  const ids = Array.from({ length: hostCount }, (_, i) => `${namespace}-h${i + 1}`);
  const hosts = ids.map((id) => new HostProcess(id, join(dir, `${id}.log`), env));
  const session = await openKeyspace({
    contactPoints: cluster.cassandraContactPoints,
    localDataCenter: cluster.cassandraDatacenter,
    keyspace: namespace,
  });
  const leases = new LeaseTable(session);
  const watcher = await NatsTransport.connect({ servers: cluster.natsUrl, namespace, name: 'checker' });
  const checker = new OwnershipChecker(watcher, leases);
  const ownerOf = async (shard: number) => {
    const lease = (await leases.list()).find((l) => l.shard === shard && l.expiresAt > Date.now());
    return lease?.owner ?? undefined;
  };
  let edge: RunningServer | undefined;
  const close = async () => {
    checker.stop();
    await edge?.close();
    await Promise.all(hosts.map((host) => host.stop()));
    await watcher.close();
    await session.shutdown();
    await dropNamespace(config, cluster).catch(() => undefined);
  };
  try {
    await settled(leases, ids, config.shardCount, hosts);
    edge = await startServer(config, await connectEdgeBackend(config, cluster, createLogger({ level: 'silent' })));
  } catch (err) {
    await close();
    throw err;
  }
  const client = new ChatClient(edge.url);
  const login = async (email: string) => {
    const reply = await client.post<{ api_key: string }>('/dev_fetch_api_key', { username: email });
    return client.as({ email, apiKey: reply.body.api_key });
  };
  return { config, cluster, hosts, edge, client, leases, checker, ownerOf, login, close };
}

async function settled(leases: LeaseTable, ids: string[], shardCount: number, hosts: HostProcess[]): Promise<void> {
  const until = Date.now() + 90_000;
  for (;;) {
    const rows = await leases.list().catch(() => []);
    const now = Date.now();
    const ok = Array.from({ length: shardCount }, (_, s) => s).every((s) => {
      const row = rows.find((r) => r.shard === s);
      return row !== undefined && row.expiresAt > now && row.owner === rendezvous(s, ids);
    });
    if (ok) return;
    if (Date.now() > until) {
      const logs = await Promise.all(hosts.map(async (h) => `${h.id}:\n${(await h.log()).slice(-2000)}`));
      throw new Error(`hosts did not settle on their shards\n${logs.join('\n')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
