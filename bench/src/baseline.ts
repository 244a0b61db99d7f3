import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Http } from './http.js';
import { ServerProcess } from '@chat/testkit';
import { sampleProcess, type ProcSample } from './proc.js';
import type { Manifest } from './setup.js';
import type { Cleanups } from './target.js';

const BASELINE_MAIN = fileURLToPath(new URL('./baseline-server.js', import.meta.url));

export interface Baseline {
  url: string;
  http: Http;
  sample(): ProcSample | undefined;
  stop(): Promise<void>;
}

/** Starts the Koa baseline (baseline-server.ts) knowing the bench users' keys. */
export async function startBaseline(manifest: Manifest, cleanups: Cleanups): Promise<Baseline> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-baseline-'));
  const file = join(dir, 'credentials.json');
  const server = new ServerProcess([process.execPath, BASELINE_MAIN, file], {});
  const cleanup = async () => {
    cleanups.delete(cleanup);
    await server.stop(5000);
    await rm(dir, { recursive: true, force: true });
  };
  cleanups.add(cleanup);
  try {
    await writeFile(file, JSON.stringify(manifest.users.map((u) => [u.email, u.apiKey])));
    await server.start(30_000);
  } catch (err) {
    await cleanup();
    throw err;
  }
  const http = new Http(server.url);
  return {
    url: server.url,
    http,
    sample: () => sampleProcess(server.pid),
    async stop() {
      http.close();
      await cleanup();
    },
  };
}
