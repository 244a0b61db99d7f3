import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { TestServer } from './support.js';

/**
 * Secrets are compared in constant time: API keys, password hashes and the
 * hashes of mailed links' keys go through `secretsEqual` or
 * `timingSafeEqual`, never `===`. The source is searched for comparisons
 * whose operands name a secret; the few that compare values no caller
 * supplies are listed with the reason.
 */
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const SECRET = /^(api_?key|password|password_?hash|key_?hash|hash|secret)$/i;
/** Comparisons with these are presence checks, not comparisons of secrets. */
const HARMLESS = /^(null|undefined|''|""|\d+)$/;
const ALLOWED: Record<string, string> = {
  // The edge made these keys and hashes itself; it only pairs each mailed link with the invitation.
  'packages/api/src/invitations/invites.ts: k.hash === invited.key_hash': 'no caller-supplied value',
};

async function* sources(dir: string): AsyncGenerator<string> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() && !['node_modules', 'dist', 'test'].includes(entry.name)) yield* sources(path);
    else if (entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) yield path;
  }
}

/** The last name of an operand: `candidate.password_hash` -> `password_hash`. */
const nameOf = (operand: string) => /([A-Za-z_$][\w$]*)[!?]*$/.exec(operand)?.[1] ?? '';

/** The comparisons of secrets on the lines of one file, as `file: left op right`. */
function comparisonsIn(file: string, text: string): string[] {
  const found: string[] = [];
  for (const line of text.split('\n')) {
    const code = line.replace(/\/\/.*$/, '');
    for (const [, type, left, op, right] of code.matchAll(
      /(typeof\s+)?([\w$.?!\]]+)\s*(===|!==|==|!=)\s*([\w$.?!'"]+)/g,
    )) {
      if (type || HARMLESS.test(left!) || HARMLESS.test(right!)) continue;
      if (SECRET.test(nameOf(left!)) || SECRET.test(nameOf(right!))) found.push(`${file}: ${left} ${op} ${right}`);
    }
  }
  return found;
}

test('no secret is compared with === anywhere in the actors or packages', async (t) => {
  const found: string[] = [];
  for (const top of ['actors', 'packages']) {
    for await (const path of sources(join(ROOT, top))) {
      if (!path.includes('/src/')) continue;
      found.push(...comparisonsIn(relative(ROOT, path), await readFile(path, 'utf8')));
    }
  }
  t.deepEqual(
    found.filter((where) => !(where in ALLOWED)),
    [],
  );
  // The allowed one is still found: the search sees what it looks for.
  t.true(found.some((where) => where in ALLOWED));
});

test('the search tells a comparison of a secret from a presence check', (t) => {
  const sample = [
    'if (command.api_key === account.apiKey) ok();',
    'const same = invite.keyHash == hashed; // a comment: x.password === y',
    'if (candidate.password_hash === null || stored.hash !== undefined) return;',
    "if (token === '>') next();",
    "if (typeof options.password === 'string') hash();",
  ].join('\n');
  t.deepEqual(comparisonsIn('sample.ts', sample), [
    'sample.ts: command.api_key === account.apiKey',
    'sample.ts: invite.keyHash == hashed',
  ]);
});

test('a key of another length, or for an unknown address, is refused like any wrong key', async (t) => {
  const server = await TestServer.start();
  t.teardown(() => server.stop());
  const hamlet = await server.login('hamlet@zulip.com');
  const key = hamlet.credentials!.apiKey;
  for (const [email, apiKey] of [
    ['hamlet@zulip.com', key.slice(0, 5)],
    ['hamlet@zulip.com', `${key}${key}`],
    ['hamlet@zulip.com', 'é'.repeat(16)],
    ['nobody@zulip.com', key],
  ] as const) {
    const reply = await server.client.as({ email, apiKey }).get('/users/me');
    t.is(reply.status, 401, `${email}:${apiKey}`);
    t.like(reply.body, { result: 'error', code: 'INVALID_API_KEY', msg: 'Invalid API key' });
  }
});
