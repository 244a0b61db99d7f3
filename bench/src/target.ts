import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { openCluster } from './cluster.js';
import { UsageError, type Options } from './config/args.js';
import { openEmbedded, readManifest } from './embedded.js';
import { Http } from './http.js';
import { sampleProcess, type ProcSample } from './proc.js';
import type { Progress } from './progress.js';
import { adminCredentials, setUpRealm, sizeKey, type Manifest, type RealmShape } from './setup.js';

/** A server under test with its realm set up. */
export interface Target {
  kind: 'embedded' | 'cluster' | 'url';
  /** The first (or only) address; a cluster's edges are all in `http`. */
  url: string;
  http: Http;
  manifest: Manifest;
  /** How the realm came to be, for the result file. */
  setup: { fromCache: boolean; seconds: number };
  /** The server's process when the harness can see it (embedded, or --server-pid); a cluster has several. */
  pid: number | undefined;
  /** Memory and CPU of the server: for a cluster, the sums over its processes, each one in `processes`. */
  sample(): ProcSample | undefined;
  stop(): Promise<void>;
}

/** What must run if the harness is interrupted: stop the servers it started, remove their folders. */
export type Cleanups = Set<() => Promise<void>>;

/** Throws once `cleanup` has run (the harness was interrupted): nothing may start after it. */
export function stillWanted(cleanups: Cleanups, cleanup: () => Promise<void>): void {
  if (!cleanups.has(cleanup)) throw new Error('interrupted');
}

export async function openTarget(
  options: Options,
  shape: RealmShape,
  progress: Progress,
  cleanups: Cleanups,
): Promise<Target> {
  if (options.target === 'embedded') return openEmbedded(options, shape, progress, cleanups);
  if (options.target === 'cluster') return openCluster(options, shape, progress, cleanups);
  if (!/^http:\/\//.test(options.target)) throw new UsageError(`--target must be embedded, cluster or http://…`);
  return openUrl(options, shape, progress);
}

/**
 * A running server. Setup goes through the API (POST /users: the harness
 * cannot reach a remote server's admin command line); its manifest is
 * cached per URL and reused while its last user's key still works, since
 * re-creating existing users would hash every password again.
 */
async function openUrl(options: Options, shape: RealmShape, progress: Progress): Promise<Target> {
  const began = Date.now();
  const http = new Http(options.target);
  const urlHash = createHash('sha256').update(options.target).digest('hex').slice(0, 12);
  const path = join(options.cacheDir, `url-${urlHash}`, `${sizeKey(shape)}.json`);
  let manifest = options.noCache ? undefined : await readManifest(path);
  const last = manifest?.users.at(-1);
  if (manifest && (!last || (await http.request('GET', '/users/me', {}, last)).status !== 200)) manifest = undefined;
  const fromCache = manifest !== undefined;
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
    setup: { fromCache, seconds: Math.round((Date.now() - began) / 100) / 10 },
    pid,
    sample: () => sampleProcess(pid),
    async stop() {
      http.close();
    },
  };
}
