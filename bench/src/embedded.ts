import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServerProcess } from '@chat/testkit';
import { createUsersInBulk, SERVER_MAIN } from './bulk.js';
import type { Options } from './config/args.js';
import { Http } from './http.js';
import { sampleProcessTree } from './proc.js';
import type { Progress } from './progress.js';
import { adminCredentials, sizeKey, subscribeAll, type Manifest, type RealmShape } from './setup.js';
import { stillWanted, type Cleanups, type Target } from './target.js';

/** Node flags the operator adds to the server's (a CPU profile, say), split on spaces. */
const EXTRA_FLAGS = process.env.BENCH_SERVER_FLAGS?.split(' ').filter(Boolean) ?? [];

/** The server in its own process, as deployed: `main.js start` over a data folder of its own. */
function serverProcess(dataDir: string): ServerProcess {
  // The V8 setting of `npm start`, the Dockerfile and cluster.sh: a larger young generation, less GC.
  const node = [process.execPath, '--max-semi-space-size=64', ...EXTRA_FLAGS];
  return new ServerProcess([...node, SERVER_MAIN, 'start'], {
    DATA_DIR: dataDir,
    PORT: '0',
    CHAT_MODE: 'development',
    CHAT_ROLE: 'embedded',
    // Request logs at info would be written to a pipe the harness drains: the operator may still ask for them.
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    // The harness is many users behind one address and one administrator building the realm: the API
    // rate limits would measure themselves. The operator may still turn them on.
    RATE_LIMITING: process.env.RATE_LIMITING ?? 'false',
  });
}

/**
 * The realm of a size is built once and kept (journal, store and manifest)
 * in the cache; every run starts a fresh server on a copy of it, so runs
 * start from the same state and never pay for setup again. Building it:
 * the development realm comes from a first start; the accounts from the
 * `create-users` admin command on the stopped folder (no password hashes);
 * the subscriptions through the API.
 */
export async function openEmbedded(
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
  // `server` is set before it starts, so that an interruption stops it even while it starts.
  const launch = async (why: string) => {
    stillWanted(cleanups, cleanup);
    progress.log(`starting the server (${why})…`);
    const starting = serverProcess(dataDir);
    server = starting;
    // A large cached realm takes a while to recover.
    await starting.start(300_000);
    return starting;
  };
  const began = Date.now();
  try {
    let manifest = options.noCache ? undefined : await readManifest(join(entry, 'manifest.json'));
    const fromCache = manifest !== undefined;
    if (manifest) {
      progress.log(`realm ${manifest.key}: from the cache at ${entry}`);
      await cp(join(entry, 'data'), dataDir, { recursive: true });
      server = await launch('cached realm');
    } else {
      server = await launch('new development realm');
      let http = new Http(server.url);
      const admin = await adminCredentials(http, options.adminEmail, options.adminKey);
      http.close();
      // The admin command opens the data folder itself: the server must be stopped.
      await server.stop();
      const users = await createUsersInBulk({ DATA_DIR: dataDir, CHAT_ROLE: 'embedded' }, shape.users, progress);
      server = await launch('subscriptions');
      http = new Http(server.url);
      manifest = await subscribeAll(http, shape, admin, users, options.setupConcurrency, progress, 'create-users');
      http.close();
      if (!options.noCache) {
        // Stopped first so the copy is a closed, checkpointed folder; the measured server starts from the same state.
        await server.stop();
        await saveEntry(entry, dataDir, manifest);
        server = await launch('measured');
      }
    }
    const running = server;
    const http = new Http(running.url);
    return {
      kind: 'embedded',
      url: running.url,
      http,
      manifest,
      setup: { fromCache, seconds: Math.round((Date.now() - began) / 100) / 10 },
      pid: running.pid,
      sample: () => sampleProcessTree(running.pid),
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

export async function readManifest(path: string): Promise<Manifest | undefined> {
  if (!existsSync(path)) return undefined;
  const manifest = JSON.parse(await readFile(path, 'utf8')) as Manifest;
  return manifest.version === 1 ? manifest : undefined;
}
