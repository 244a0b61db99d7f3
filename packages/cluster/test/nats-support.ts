import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import type { Logger } from '@chat/runtime';
import { NatsTransport } from '../src/index.js';

/** The shared server's URL; the tests fail loudly, never skip, when the engines are not up. */
export function natsUrl(): string {
  const url = process.env.NATS_URL;
  if (!url) {
    throw new Error(
      'NATS_URL is not set. Start the engines and export their addresses: ' +
        '`eval "$(infra/up.sh)"` (or `set -a; . /tmp/chat-infra/infra.env; set +a`), or run `npm test`.',
    );
  }
  return url;
}

export const freshNamespace = () => `t_${randomBytes(6).toString('hex')}`;

export const bytes = (text: string) => new TextEncoder().encode(text);
export const text = (data: Uint8Array) => new TextDecoder().decode(data);

export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
}

export function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** A logger that keeps what it was told, to check that failures are reported. */
export class RecordingLogger implements Logger {
  readonly lines: { level: string; msg: string; obj: object }[] = [];
  info(obj: object, msg = '') {
    this.lines.push({ level: 'info', msg, obj });
  }
  warn(obj: object, msg = '') {
    this.lines.push({ level: 'warn', msg, obj });
  }
  error(obj: object, msg = '') {
    this.lines.push({ level: 'error', msg, obj });
  }
  child(): Logger {
    return this;
  }
}

/** Transports opened by a test file, closed in its `after.always`. */
export class Transports {
  private readonly open: NatsTransport[] = [];

  async connect(servers: string, namespace: string, log?: Logger): Promise<NatsTransport> {
    const transport = await NatsTransport.connect({ servers, namespace, name: namespace, ...(log ? { log } : {}) });
    this.open.push(transport);
    return transport;
  }

  async closeAll(): Promise<void> {
    await Promise.all(this.open.splice(0).map((t) => t.close()));
  }
}

/** Polls `probe` until it returns true; the deadline only bounds a broken run, it is not what is tested. */
export async function eventually(probe: () => Promise<boolean>, deadlineMs = 60_000): Promise<void> {
  const until = Date.now() + deadlineMs;
  while (!(await probe())) {
    if (Date.now() > until) throw new Error(`condition not reached within ${deadlineMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * A nats-server of this test's own, on a port of its own, so that a test can
 * kill and restart it without touching the server other engineers share.
 */
export class OwnNatsServer {
  private child: ChildProcess | undefined;

  private constructor(
    readonly port: number,
    /** The HTTP monitoring port (`-m`), when asked for. */
    readonly monitorPort: number | undefined,
    /** JetStream's store folder (`-js -sd`), when asked for; it outlives a kill, so streams survive a restart. */
    readonly jetstreamDir: string | undefined = undefined,
  ) {}

  static async start(opts: { monitoring?: boolean; jetstreamDir?: string } = {}): Promise<OwnNatsServer> {
    const monitor = opts.monitoring ? await freePort() : undefined;
    const server = new OwnNatsServer(await freePort(), monitor, opts.jetstreamDir);
    await server.start();
    return server;
  }

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const args = ['-a', '127.0.0.1', '-p', String(this.port)];
    if (this.monitorPort !== undefined) args.push('-m', String(this.monitorPort));
    if (this.jetstreamDir !== undefined) args.push('-js', '-sd', this.jetstreamDir);
    const child = spawn(process.env.NATS_SERVER_BIN ?? 'nats-server', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    this.child = child;
    let log = '';
    await new Promise<void>((resolve, reject) => {
      child.once('error', (err) =>
        reject(new Error(`cannot run nats-server (${err.message}); infra/nats.sh fetch installs it`)),
      );
      child.once('exit', (code) => reject(new Error(`nats-server exited with ${code}: ${log}`)));
      child.stderr!.on('data', (chunk: Buffer) => {
        log += chunk.toString();
        if (log.includes('Server is ready')) resolve();
      });
    });
    child.removeAllListeners('exit');
  }

  /** Kills the server by its pid (SIGKILL: an abrupt outage) and waits until it is gone. */
  async kill(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    process.kill(child.pid!, 'SIGKILL');
    await exited;
  }
}
