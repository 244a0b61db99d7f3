import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_ADMISSION, DEFAULT_RATE_LIMITS } from '@chat/edge';
import { ChatClient, type Credentials } from '@chat/testkit';
import { silentLogger, type ActorClient } from '@chat/runtime';
import { loadConfig, startEmbeddedNode, startServer, type Config, type RunningServer } from '../src/index.js';
import { onCluster, startClusterServer } from './cluster-target.js';

export const MAIN = fileURLToPath(new URL('../src/main.js', import.meta.url));

export const tempDir = (prefix: string) => mkdtemp(join(tmpdir(), `${prefix}-`));

/**
 * Test files share one server and make hundreds of requests per user and
 * from one address within a minute, so the limits are raised far out of
 * reach; limiting stays on, so every response still carries the headers.
 * rate-limits.test.ts sets the real defaults itself.
 */
export const TEST_RATE_LIMITS = {
  ...DEFAULT_RATE_LIMITS,
  user: { ...DEFAULT_RATE_LIMITS.user, limit: 1_000_000 },
  ip: { ...DEFAULT_RATE_LIMITS.ip, limit: 1_000_000 },
  login: { ...DEFAULT_RATE_LIMITS.login, limit: 1_000_000 },
};

/**
 * Admission as served, but a test on a busy machine must not be refused for
 * the machine's lag or slowness, a burst of a test's requests waits for a slot
 * rather than being refused, and a request's asks share 30 s rather than 10 s
 * (CI runs many files at once: at load 20 one request's asks took over 10 s).
 * admission.test.ts tests the refusals and the deadline.
 */
export const TEST_ADMISSION = {
  ...DEFAULT_ADMISSION,
  maxLagMs: 60_000,
  targetMs: 0,
  maxWaitMs: 10_000,
  deadlineMs: 30_000,
};

/** An in-process server on a free port over a fresh data folder. */
export class TestServer {
  private constructor(
    readonly server: RunningServer,
    readonly dir: string,
    readonly client: ChatClient,
  ) {}

  /**
   * `wrap`, embedded only: the edge reaches the actors through what it makes of the node's client (a
   * test that holds one ask while something else happens).
   */
  static async start(
    overrides: Partial<Config> = {},
    wrap?: (actors: ActorClient) => ActorClient,
  ): Promise<TestServer> {
    const dir = overrides.dataDir ?? (await tempDir('server-test'));
    const config = loadConfig(
      {},
      {
        port: 0,
        dataDir: dir,
        logLevel: 'silent',
        rateLimits: TEST_RATE_LIMITS,
        admission: TEST_ADMISSION,
        ...overrides,
      },
    );
    const server = onCluster
      ? await startClusterServer(config, overrides.dataDir !== undefined)
      : wrap
        ? await startWrapped(config, wrap)
        : await startServer(config);
    return new TestServer(server, dir, new ChatClient(server.url));
  }

  /** A client logged in as a development realm user. */
  async login(email: string): Promise<ChatClient> {
    const reply = await this.client.post<{ api_key: string }>('/dev_fetch_api_key', { username: email });
    if (reply.status !== 200) throw new Error(`cannot log in ${email}: ${JSON.stringify(reply.body)}`);
    return this.client.as({ email, apiKey: reply.body.api_key });
  }

  async stop(): Promise<void> {
    await this.server.close();
    await rm(this.dir, { recursive: true, force: true });
  }
}

async function startWrapped(config: Config, wrap: (actors: ActorClient) => ActorClient): Promise<RunningServer> {
  const node = await startEmbeddedNode(config, silentLogger);
  return startServer(config, { ...node, actors: wrap(node.actors) });
}

/**
 * The figures of a server's /metrics, each series by its name as written
 * there (`chat_journal_fsyncs`, `chat_admission_refused{reason="slow route"}`).
 */
export async function metricsAt(url: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const figures = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    // The value follows the last space: a label's value may hold spaces.
    const at = line.lastIndexOf(' ');
    figures.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return figures;
}

export const wrongKey = (email: string): Credentials => ({ email, apiKey: 'x'.repeat(32) });
