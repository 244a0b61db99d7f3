import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { request } from 'node:http';
import test from 'ava';
import { MAIN, tempDir } from './support.js';

/**
 * The embedded server with EDGE_WORKERS=2: HTTP served by two worker
 * processes sharing the port, the actors in the first process. Every request
 * here opens its own connection, so the workers take turns (the cluster
 * module hands connections round-robin).
 */

interface Server {
  child: ChildProcess;
  url: string;
  key: string;
  dir: string;
  /** Everything the server wrote on stdout: JSON log lines of all its processes. */
  logs: () => string;
  exit: Promise<number | null>;
}

async function start(env: Record<string, string> = {}): Promise<Server> {
  const dir = await tempDir('edge-workers');
  const child = spawn(process.execPath, [MAIN, 'start'], {
    env: {
      ...process.env,
      PORT: '0',
      DATA_DIR: dir,
      LOG_LEVEL: 'info',
      CHAT_MODE: 'development',
      EDGE_WORKERS: '2',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exit = once(child, 'exit').then(([code]) => code as number | null);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  const [, url, key] = await new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready in 60 s:\n${stdout}\n${stderr}`)), 60_000);
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const found = /curl -u iago@zulip\.com:(\S+) (http:\/\/[\d.]+:\d+)/.exec(stderr);
      if (found) {
        clearTimeout(timer);
        resolve([found[0], found[2]!, found[1]!] as unknown as RegExpExecArray);
      }
    });
  });
  return { child, url: url!, key: key!, dir, logs: () => stdout, exit };
}

async function stop(server: Server): Promise<void> {
  server.child.kill('SIGKILL');
  for (const pid of workersOf(server)) process.kill(pid, 'SIGKILL');
  await rm(server.dir, { recursive: true, force: true });
}

/** The running processes the server started (its edge workers). */
function workersOf(server: Server): number[] {
  const pid = server.child.pid!;
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
      readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number),
    );
  } catch {
    return [];
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

interface Reply {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

/** One request on a connection of its own. */
function call(
  server: Server,
  method: string,
  path: string,
  opts: {
    form?: Record<string, string>;
    body?: Buffer;
    type?: string;
    headers?: Record<string, string>;
    auth?: string | null;
  } = {},
): Promise<Reply> {
  const body = opts.form ? Buffer.from(new URLSearchParams(opts.form).toString()) : opts.body;
  const auth =
    opts.auth === null
      ? {}
      : { authorization: `Basic ${Buffer.from(opts.auth ?? `iago@zulip.com:${server.key}`).toString('base64')}` };
  return new Promise((resolve, reject) => {
    const req = request(
      `${server.url}${path}`,
      {
        method,
        agent: false,
        headers: {
          ...auth,
          ...(body && {
            'content-type': opts.type ?? 'application/x-www-form-urlencoded',
            'content-length': body.length,
          }),
          ...opts.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString('latin1'), headers: res.headers }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.setTimeout(30_000, () => req.destroy(new Error(`${method} ${path}: no answer in 30 s`)));
    req.end(body);
  });
}

const json = (reply: Reply) => JSON.parse(reply.body) as Record<string, unknown>;

/** The processes whose log lines name `route`. */
const pidsServing = (server: Server, route: string) =>
  new Set(
    server
      .logs()
      .split('\n')
      .filter((line) => line.includes(`"route":"${route}"`))
      .map((line) => (JSON.parse(line) as { pid: number }).pid),
  );

test.serial(
  'two workers serve one port: a long poll held on one gets the message sent through the other, uploads and sessions cross, stop ends every process',
  async (t) => {
    const server = await start();
    try {
      const workers = workersOf(server);
      t.is(workers.length, 2);

      const queue = json(await call(server, 'POST', '/api/v1/register', { form: { event_types: '["message"]' } }));
      t.is(queue.result, 'success');
      const poll = call(server, 'GET', `/api/v1/events?queue_id=${String(queue.queue_id)}&last_event_id=-1`);
      await new Promise((resolve) => setTimeout(resolve, 500));
      for (let i = 0; i < 4; i++) {
        const sent = await call(server, 'POST', '/api/v1/messages', {
          form: { type: 'stream', to: 'Verona', topic: 'workers', content: `hello ${i}` },
        });
        t.is(sent.status, 200, sent.body);
      }
      const events = json(await poll).events as Array<{ type: string; message: { content: string } }>;
      t.is(events[0]!.type, 'message');
      t.regex(events[0]!.message.content, /hello 0/);
      // Both workers answered sends, and neither is the process holding the actors.
      const serving = pidsServing(server, '/api/v1/messages');
      t.deepEqual([...serving].sort(), [...workers].sort());

      // An upload through one worker is read through the other.
      const bytes = Buffer.from('a file of the workers test\n');
      const boundary = 'xyzzy';
      const form = Buffer.concat([
        Buffer.from(
          `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="w.txt"\r\ncontent-type: text/plain\r\n\r\n`,
        ),
        bytes,
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);
      const uploaded = json(
        await call(server, 'POST', '/api/v1/user_uploads', {
          body: form,
          type: `multipart/form-data; boundary=${boundary}`,
        }),
      );
      t.is(uploaded.result, 'success');
      for (let i = 0; i < 2; i++) {
        const got = await call(server, 'GET', String(uploaded.url));
        const download =
          got.status === 302 || got.status === 307 ? await call(server, 'GET', String(got.headers.location)) : got;
        t.is(download.status, 200);
        t.is(download.body, bytes.toString('latin1'));
      }

      // A session started through one worker opens the account through either.
      const login = await call(server, 'POST', '/api/v1/dev_fetch_api_key', {
        form: { username: 'hamlet@zulip.com' },
        auth: null,
      });
      t.is(login.status, 200, login.body);
      const cookie = (login.headers['set-cookie'] as string[]).map((c) => c.split(';')[0]).join('; ');
      for (let i = 0; i < 4; i++) {
        const me = await call(server, 'GET', '/json/users/me', { auth: null, headers: { cookie } });
        t.is(json(me).user_id, 10);
      }
      t.is(pidsServing(server, '/json/users/me').size, 2);

      // The host's figures reach /metrics through a worker.
      t.regex((await call(server, 'GET', '/metrics')).body, /^chat_actors_live [1-9]/m);

      // Graceful stop: the first process stops its workers, then itself, with success.
      const held = call(server, 'GET', `/api/v1/events?queue_id=${String(queue.queue_id)}&last_event_id=100`).catch(
        () => 'cut',
      );
      server.child.kill('SIGTERM');
      t.is(await server.exit, 0);
      await held;
      t.deepEqual(
        workers.filter((pid) => alive(pid)),
        [],
      );
    } finally {
      await stop(server);
    }
  },
);

test.serial('a worker that dies is started again, and the server keeps answering meanwhile', async (t) => {
  const server = await start({ LOG_LEVEL: 'warn' });
  try {
    const [victim, survivor] = workersOf(server);
    process.kill(victim!, 'SIGKILL');
    // A connection handed to the worker as it dies waits until its client gives up (Node's
    // cluster round-robin does not hand it to another): ask once the first process noticed.
    for (let i = 0; i < 100 && !server.logs().includes('edge worker died'); i++)
      await new Promise((r) => setTimeout(r, 100));
    for (let i = 0; i < 6; i++) t.is((await call(server, 'GET', '/api/v1/users/me')).status, 200);
    for (let i = 0; i < 100 && workersOf(server).length < 2; i++) await new Promise((r) => setTimeout(r, 100));
    const now = workersOf(server);
    t.is(now.length, 2);
    t.true(now.includes(survivor!) && !now.includes(victim!));
    t.regex(server.logs(), /edge worker died/);
  } finally {
    await stop(server);
  }
});

test.serial('rate limits are counted across workers', async (t) => {
  const server = await start({ LOG_LEVEL: 'warn', RATE_LIMITING: 'true', RATE_LIMIT_USER: '6' });
  try {
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await call(server, 'GET', '/api/v1/users/me')).status);
    // Counted per worker, 8 requests over two would be 4 each: none refused.
    t.deepEqual(statuses, [200, 200, 200, 200, 200, 200, 429, 429]);
  } finally {
    await stop(server);
  }
});
