import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Progress } from './progress.js';
import { EMAIL_PATTERN, NAME_PATTERN, type BenchUser } from './setup.js';

/** The server's command line (`main.js start`, and the admin commands). */
export const SERVER_MAIN = join(dirname(fileURLToPath(import.meta.resolve('@chat/server'))), 'main.js');

/** The realm a development server makes and serves at 127.0.0.1 (DEV_REALM in packages/server). */
export const DEV_REALM_ID = 'zulip';

/**
 * The accounts of a realm made by the server's `create-users` admin command:
 * batches of 500 in one realm-actor decision each, with API keys and no
 * password, so no scrypt hash (the ~100 ms of CPU per user that makes POST
 * /users take ten minutes for 10,000). `env` says where the command finds
 * the data: an embedded server's stopped DATA_DIR, or a running cluster
 * (CHAT_ROLE=edge and the cluster's settings). Its progress lines on stderr
 * move the bar.
 */
export function createUsersInBulk(env: NodeJS.ProcessEnv, count: number, progress: Progress): Promise<BenchUser[]> {
  const args = ['create-users', '--realm', DEV_REALM_ID, '--count', String(count)];
  args.push('--email', EMAIL_PATTERN, '--name', NAME_PATTERN);
  progress.start('creating users', count, '(create-users, no passwords)');
  const child = spawn(process.execPath, [SERVER_MAIN, ...args], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out: Buffer[] = [];
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => {
    err = (err + chunk.toString()).slice(-4000);
    const done = [...chunk.toString().matchAll(/created (\d+)\//g)].at(-1);
    if (done) progress.update(Number(done[1]));
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      progress.stop();
      if (code !== 0) return reject(new Error(`create-users exited with ${code}:\n${err}`));
      const grants = JSON.parse(Buffer.concat(out).toString()) as Array<{
        api_key: string;
        email: string;
        user_id: number;
      }>;
      resolve(grants.map((g, index) => ({ index, email: g.email, apiKey: g.api_key, userId: g.user_id })));
    });
  });
}
