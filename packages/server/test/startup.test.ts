import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { rm } from 'node:fs/promises';
import test from 'ava';
import { MAIN, tempDir } from './support.js';

/**
 * What `npm start` prints: the lines for people (the URL, the curl hint, the
 * stop notice) on stderr, and on stdout only JSON log lines, none of which
 * names a key twice.
 */
test('the banner goes to stderr; stdout is JSON log lines with no repeated key', async (t) => {
  const dir = await tempDir('startup');
  const child = spawn(process.execPath, [MAIN, 'start'], {
    env: { ...process.env, PORT: '0', DATA_DIR: dir, LOG_LEVEL: 'info', CHAT_MODE: 'development' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner in 30 s:\n${stdout}\n${stderr}`)), 30_000);
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const found = /at (http:\/\/[\d.]+:\d+)/.exec(stderr);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]!);
      }
    });
  });
  try {
    t.is((await fetch(`${url}/api/v1/server_settings`)).status, 200);
    t.is((await fetch(`${url}/api/v1/no_such_route`)).status, 404);
  } finally {
    child.kill('SIGINT');
    await once(child, 'exit');
    await rm(dir, { recursive: true, force: true });
  }
  t.regex(stderr, /Team chat server \(embedded, development mode\) at http/);
  t.regex(stderr, /^Try: {2}curl -u iago@zulip\.com:/m);
  t.regex(stderr, /SIGINT: stopping/);
  const lines = stdout.split('\n').filter((line) => line !== '');
  t.true(lines.length >= 3, stdout);
  for (const line of lines) {
    const parsed = JSON.parse(line) as Record<string, unknown>;
    const keys = [...line.matchAll(/"([^"\\]+)":/g)].map((m) => m[1]!);
    // Nested objects may reuse a name; the top level may not.
    const top = keys.filter((key) => Object.hasOwn(parsed, key));
    t.is(new Set(top).size, Object.keys(parsed).length, line);
  }
  t.true(lines.some((line) => line.includes('"route":"/api/v1/server_settings"')));
});
