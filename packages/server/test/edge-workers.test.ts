import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { createServer } from 'node:net';
import { availableParallelism } from 'node:os';
import test from 'ava';
import { MAIN, tempDir } from './support.js';

/**
 * The embedded server with edge workers: HTTP served by worker processes
 * sharing the port, the actors in the first process. Most tests here run
 * EDGE_WORKERS=2; the default (1 worker on a machine of 2 cores or more) is
 * what every other test starting `main.js start` as a process runs. Each
 * worker accepts connections from the shared socket itself (SCHED_NONE).
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

/** `EDGE_WORKERS: ''` starts the default number of workers. */
async function start(env: Record<string, string> = {}, dir?: string): Promise<Server> {
  dir ??= await tempDir('edge-workers');
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
    /** Default: a connection of its own. */
    agent?: Agent;
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
        agent: opts.agent ?? false,
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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The pid of the worker that served the request of this X-Request-Id (its log line names both). */
async function servedBy(server: Server, id: string): Promise<number> {
  for (let i = 0; i < 100; i++) {
    const line = server
      .logs()
      .split('\n')
      .find((l) => l.includes(`"requestId":"${id}"`));
    if (line) return (JSON.parse(line) as { pid: number }).pid;
    await sleep(20);
  }
  throw new Error(`no log line for ${id}`);
}

/**
 * Keep-alive agents of one connection each, `perWorker` on every worker: each worker accepts from the
 * shared socket itself, so which one takes a new connection is the kernel's choice; a connection that
 * lands on a worker with its share already is closed and another opened. Asks GET server_settings
 * (no credentials: a user's rate limit is not touched); needs the server's info log lines.
 */
async function agentsOnEachWorker(server: Server, perWorker = 1): Promise<Map<number, Agent[]>> {
  const byWorker = new Map<number, Agent[]>(workersOf(server).map((pid) => [pid, []]));
  const wanted = byWorker.size * perWorker;
  let found = 0;
  for (let tries = 0; found < wanted && tries < 200; tries++) {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const id = `warm-${tries}`;
    const reply = await call(server, 'GET', '/api/v1/server_settings', {
      agent,
      auth: null,
      headers: { 'x-request-id': id },
    });
    if (reply.status !== 200) throw new Error(`server_settings: ${reply.status}`);
    const on = byWorker.get(await servedBy(server, id))!;
    if (on.length < perWorker) {
      on.push(agent);
      found++;
    } else agent.destroy();
  }
  if (found < wanted) throw new Error(`no connection reached every worker in 200 tries`);
  return byWorker;
}

test.serial(
  'two workers serve one port: a long poll held on one gets the message sent through the other, uploads and sessions cross, stop ends every process',
  async (t) => {
    const server = await start();
    const agents = [...(await agentsOnEachWorker(server)).values()].flat();
    const [a, b] = agents;
    try {
      const workers = workersOf(server);
      t.is(workers.length, 2);

      const queue = json(await call(server, 'POST', '/api/v1/register', { form: { event_types: '["message"]' } }));
      t.is(queue.result, 'success');
      const poll = call(server, 'GET', `/api/v1/events?queue_id=${String(queue.queue_id)}&last_event_id=-1`, {
        agent: a!,
      });
      await sleep(500);
      for (let i = 0; i < 4; i++) {
        const sent = await call(server, 'POST', '/api/v1/messages', {
          form: { type: 'stream', to: 'Verona', topic: 'workers', content: `hello ${i}` },
          agent: i === 0 ? b! : agents[i % 2]!,
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
          agent: a!,
        }),
      );
      t.is(uploaded.result, 'success');
      for (const agent of agents) {
        const got = await call(server, 'GET', String(uploaded.url), { agent });
        const download =
          got.status === 302 || got.status === 307
            ? await call(server, 'GET', String(got.headers.location), { agent })
            : got;
        t.is(download.status, 200);
        t.is(download.body, bytes.toString('latin1'));
      }

      // A session started through one worker opens the account through either.
      const login = await call(server, 'POST', '/api/v1/dev_fetch_api_key', {
        form: { username: 'hamlet@zulip.com' },
        auth: null,
        agent: a!,
      });
      t.is(login.status, 200, login.body);
      const cookie = (login.headers['set-cookie'] as string[]).map((c) => c.split(';')[0]).join('; ');
      for (let i = 0; i < 4; i++) {
        const me = await call(server, 'GET', '/json/users/me', {
          auth: null,
          headers: { cookie },
          agent: agents[i % 2]!,
        });
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
      for (const agent of agents) agent.destroy();
      await stop(server);
    }
  },
);

test.serial('a worker that dies is started again, and the server keeps answering meanwhile', async (t) => {
  const server = await start({ LOG_LEVEL: 'warn' });
  try {
    const [victim, survivor] = workersOf(server);
    process.kill(victim!, 'SIGKILL');
    // The survivor accepts every new connection at once (the dead worker's share of the socket is gone).
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
  const server = await start({ RATE_LIMITING: 'true', RATE_LIMIT_USER: '6' });
  const agents = [...(await agentsOnEachWorker(server)).values()].flat();
  try {
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++)
      statuses.push((await call(server, 'GET', '/api/v1/users/me', { agent: agents[i % 2]! })).status);
    // Counted per worker, 8 requests over two would be 4 each: none refused.
    t.deepEqual(statuses, [200, 200, 200, 200, 200, 200, 429, 429]);
  } finally {
    for (const agent of agents) agent.destroy();
    await stop(server);
  }
});

test.serial('by default one worker on a machine of 2 cores or more; EDGE_WORKERS=0 is one process', async (t) => {
  const byDefault = await start({ LOG_LEVEL: 'warn', EDGE_WORKERS: '' });
  try {
    t.is(workersOf(byDefault).length, availableParallelism() >= 2 ? 1 : 0);
    t.is((await call(byDefault, 'GET', '/api/v1/users/me')).status, 200);
  } finally {
    await stop(byDefault);
  }
  const alone = await start({ LOG_LEVEL: 'warn', EDGE_WORKERS: '0' });
  try {
    t.deepEqual(workersOf(alone), []);
    t.is((await call(alone, 'GET', '/api/v1/users/me')).status, 200);
  } finally {
    await stop(alone);
  }
});

test.serial(
  'kill -9 of the first process leaves no worker behind: the port is soon free, a restart binds it',
  async (t) => {
    const first = await start({ LOG_LEVEL: 'warn', EDGE_WORKERS: '1' });
    const workers = workersOf(first);
    t.is(workers.length, 1);
    const port = new URL(first.url).port;
    first.child.kill('SIGKILL');
    await first.exit;
    // The worker shares the listening socket: it must let go of it as soon as it hears the first process
    // is gone (within 5 s on a machine at load 20; well under a second when quiet), not when something
    // it does later happens to fail.
    const bound = async () => {
      const probe = createServer();
      const ok = await new Promise<boolean>((resolve) => {
        probe.once('error', () => resolve(false));
        probe.listen(Number(port), '127.0.0.1', () => resolve(true));
      });
      if (ok) await new Promise((resolve) => probe.close(resolve));
      return ok;
    };
    let free = false;
    for (let i = 0; i < 250 && !(free = await bound()); i++) await sleep(20);
    t.true(free, `port ${port} still held 5 s after the first process died`);
    // The restart, same folder and port.
    const again = await start({ LOG_LEVEL: 'warn', EDGE_WORKERS: '1', PORT: port }, first.dir);
    try {
      t.is(again.url, first.url);
      t.is((await call(again, 'GET', '/api/v1/users/me')).status, 200);
      for (let i = 0; i < 50 && workers.some(alive); i++) await sleep(100);
      t.deepEqual(workers.filter(alive), [], 'the workers of the killed process exited');
      const restarted = workersOf(again);
      again.child.kill('SIGTERM');
      t.is(await again.exit, 0);
      t.deepEqual(restarted.filter(alive), [], 'SIGTERM stopped every process');
    } finally {
      await stop(again);
    }
  },
);

test.serial('a worker killed under load: only its own clients see their connection closed, none hangs', async (t) => {
  // Neither admission nor rate limits are under test: a loaded machine must not turn answers into 503s.
  const server = await start({ ADMISSION_MAX_LAG_MS: '60000', ADMISSION_TARGET_MS: '0', RATE_LIMITING: 'false' });
  try {
    type Result = 'ok' | 'closed' | 'hung' | number;
    const authorization = `Basic ${Buffer.from(`iago@zulip.com:${server.key}`).toString('base64')}`;
    // A request unanswered in 10 s counts as hung.
    const ask = (agent: Agent | false, id: string) =>
      new Promise<Result>((resolve) => {
        const req = request(
          `${server.url}/api/v1/users/me`,
          { agent, headers: { 'x-request-id': id, authorization } },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode === 200 ? 'ok' : res.statusCode!));
            res.on('error', () => resolve('closed'));
          },
        );
        req.on('error', () => resolve('closed'));
        req.setTimeout(10_000, () => {
          resolve('hung');
          req.destroy();
        });
        req.end();
      });
    // 12 clients keep one connection each (a keep-alive agent of one socket), half on each worker, so
    // each is served by one worker until its connection closes; 8 more open a new connection for every
    // request, so some are being accepted as the worker dies.
    const pinned = await agentsOnEachWorker(server, 6);
    const agents = [...pinned.values()].flat();
    const clients = agents.length + 8;
    const outcomes: Array<Array<{ at: number; result: Result }>> = Array.from({ length: clients }, () => []);
    let running = true;
    const loop = async (c: number) => {
      for (let n = 0; running; n++) {
        const at = Date.now();
        outcomes[c]!.push({ at, result: await ask(agents[c] ?? false, `client-${c}-${n}`) });
        await sleep(agents[c] ? 20 : 0);
      }
      agents[c]?.destroy();
    };
    const loops = Array.from({ length: clients }, (_, c) => loop(c));
    await sleep(500);
    const [victim] = pinned.keys();
    const killedAt = Date.now();
    process.kill(victim!, 'SIGKILL');
    // Run on until every client has had 5 answers since the kill (or 15 s).
    const since = () => outcomes.map((o) => o.filter((x) => x.at > killedAt && x.result === 'ok').length);
    for (let i = 0; i < 300 && since().some((n) => n < 5); i++) await sleep(50);
    running = false;
    await Promise.all(loops);

    const failures = outcomes.map((o) => o.filter((x) => x.result !== 'ok'));
    t.deepEqual(
      failures.flat().filter((x) => x.result !== 'closed'),
      [],
      'no request hung nor failed with a status',
    );
    for (const [pid, on] of pinned) {
      for (const c of on.map((agent) => agents.indexOf(agent))) {
        if (pid !== victim) t.deepEqual(failures[c], [], `client ${c}, on the surviving worker, lost nothing`);
        // A killed worker's client loses the request it had there (in flight or on its dead connection), once.
        else t.true(failures[c]!.length <= 1, `client ${c}: ${failures[c]!.length} failures`);
      }
    }
    for (let c = agents.length; c < clients; c++)
      t.true(failures[c]!.length <= 1, `client ${c}: ${failures[c]!.length} failures`);
    t.deepEqual(
      since().filter((n) => n < 5),
      [],
      'every client is served again',
    );
  } finally {
    await stop(server);
  }
});
