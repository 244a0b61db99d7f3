import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UsageError, type Options } from './config/args.js';
import { Http } from './http.js';
import { ServerProcess } from '@chat/testkit';
import { sampleProcess, type ProcSample } from './proc.js';
import type { Progress } from './progress.js';
import { adminCredentials, setUpRealm, sizeKey, type Manifest, type RealmShape } from './setup.js';

/** A server under test with its realm set up. */
export interface Target {
  kind: 'embedded' | 'url';
  url: string;
  http: Http;
  manifest: Manifest;
  /** The server's process when the harness can see it (embedded, or --server-pid). */
  pid: number | undefined;
  sample(): ProcSample | undefined;
  stop(): Promise<void>;
}

const SERVER_MAIN = join(dirname(fileURLToPath(import.meta.resolve('@chat/server'))), 'main.js');

/** What must run if the harness is interrupted: stop the servers it started, remove their folders. */
export type Cleanups = Set<() => Promise<void>>;

export async function openTarget(
  options: Options,
  shape: RealmShape,
  progress: Progress,
  cleanups: Cleanups,
): Promise<Target> {
  if (options.target === 'embedded') return openEmbedded(options, shape, progress, cleanups);
  if (options.target === 'cluster') throw new UsageError('the cluster target is not available yet (its issue is open)');
  if (!/^http:\/\//.test(options.target)) throw new UsageError(`--target must be embedded, cluster or http://…`);
  return openUrl(options, shape, progress);
}

/** The server in its own process, as deployed: `main.js start` over a data folder of its own. */
function startServer(dataDir: string): Promise<ServerProcess> {
  const server = new ServerProcess([process.execPath, SERVER_MAIN, 'start'], {
    DATA_DIR: dataDir,
    PORT: '0',
    CHAT_MODE: 'development',
    // Request logs at info would be written to a pipe the harness drains: the operator may still ask for them.
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    // The harness is many users behind one address and one administrator building the realm: the API
    // rate limits would measure themselves. The operator may still turn them on.
    RATE_LIMITING: process.env.RATE_LIMITING ?? 'false',
  });
  // A large cached realm takes a while to recover.
  return server.start(120_000).then(() => server);
}

/**
 * The realm of a size is built once and kept (journal, store and manifest)
 * in the cache; every run starts a fresh server on a copy of it, so runs
 * start from the same state and never pay for setup again.
 */
async function openEmbedded(
  options: Options,
  shape: RealmShape,
  progress: Progress,
  cleanups: Cleanups,
): Promise<Target> {
  const entry = join(options.cacheDir, sizeKey(shape));
  const runDir = await mkdtemp(join(tmpdir(), 'bench-run-'));
  const dataDir = join(runDir, 'data');
  let server: ServerProcess | undefined;
  const cleanup = async () => {
    cleanups.delete(cleanup);
    await server?.stop();
    await rm(runDir, { recursive: true, force: true });
  };
  cleanups.add(cleanup);
  try {
    let manifest = options.noCache ? undefined : await readManifest(join(entry, 'manifest.json'));
    if (manifest) {
      progress.log(`realm ${manifest.key}: from the cache at ${entry}`);
      await cp(join(entry, 'data'), dataDir, { recursive: true });
      server = await startServer(dataDir);
    } else {
      server = await startServer(dataDir);
      const http = new Http(server.url);
      const admin = await adminCredentials(http, options.adminEmail, options.adminKey);
      manifest = await setUpRealm(http, shape, admin, options.setupConcurrency, progress);
      http.close();
      if (!options.noCache) {
        // Stopped first so the copy is a closed, checkpointed folder; the measured server starts from the same state.
        await server.stop();
        await saveEntry(entry, dataDir, manifest);
        server = await startServer(dataDir);
      }
    }
    const running = server;
    const http = new Http(running.url);
    return {
      kind: 'embedded',
      url: running.url,
      http,
      manifest,
      pid: running.pid,
      sample: () => sampleProcess(running.pid),
      async stop() {
        http.close();
        await cleanup();
      },
    };
  } catch (err) {
    await cleanup();
    throw err;
  }
}

async function saveEntry(entry: string, dataDir: string, manifest: Manifest): Promise<void> {
  const staging = `${entry}.partial-${process.pid}`;
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { recursive: true });
  await cp(dataDir, join(staging, 'data'), { recursive: true });
  await writeFile(join(staging, 'manifest.json'), JSON.stringify(manifest));
  // Renamed into place whole: an interrupted save never leaves a half entry that looks complete.
  await rm(entry, { recursive: true, force: true });
  await rename(staging, entry);
}

async function readManifest(path: string): Promise<Manifest | undefined> {
  if (!existsSync(path)) return undefined;
  const manifest = JSON.parse(await readFile(path, 'utf8')) as Manifest;
  return manifest.version === 1 ? manifest : undefined;
}

/**
 * A running server. Setup goes through the API as for embedded; its
 * manifest is cached per URL and reused while its last user's key still
 * works, since re-creating existing users would hash every password again.
 */
async function openUrl(options: Options, shape: RealmShape, progress: Progress): Promise<Target> {
  const http = new Http(options.target);
  const urlHash = createHash('sha256').update(options.target).digest('hex').slice(0, 12);
  const path = join(options.cacheDir, `url-${urlHash}`, `${sizeKey(shape)}.json`);
  let manifest = options.noCache ? undefined : await readManifest(path);
  const last = manifest?.users.at(-1);
  if (manifest && (!last || (await http.request('GET', '/users/me', {}, last)).status !== 200)) manifest = undefined;
  if (!manifest) {
    const admin = await adminCredentials(http, options.adminEmail, options.adminKey);
    manifest = await setUpRealm(http, shape, admin, options.setupConcurrency, progress);
    if (!options.noCache) {
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, JSON.stringify(manifest));
    }
  }
  const pid = options.serverPid;
  return {
    kind: 'url',
    url: options.target.replace(/\/$/, ''),
    http,
    manifest,
    pid,
    sample: () => sampleProcess(pid),
    async stop() {
      http.close();
    },
  };
}
