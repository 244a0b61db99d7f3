import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

/** How much of a process's output is kept: enough for a failure message, bounded for long runs. */
const KEPT_OUTPUT = 16_384;

/**
 * A server started as a child process, for tests that must kill it for real
 * and for the load harness. It is found ready when it prints its URL
 * (`... at http://host:port`).
 */
export class ServerProcess {
  url = '';
  private child: ChildProcess | undefined;
  private output = '';

  constructor(
    private readonly command: string[],
    private readonly env: NodeJS.ProcessEnv,
    /** Sees everything the process prints, in full (`log` keeps only the tail); e.g. to search its logs. */
    private readonly onOutput?: (text: string) => void,
  ) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** The tail of what the process printed, for failure messages. */
  get log(): string {
    return this.output;
  }

  /** The default leaves room for a loaded machine: at load 17 an embedded server with its edge worker took over 30 s. */
  async start(timeoutMs = 60_000): Promise<string> {
    const [cmd, ...args] = this.command;
    const child = spawn(cmd!, args, { env: { ...process.env, ...this.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    this.output = '';
    this.url = '';
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`server not ready in ${timeoutMs} ms:\n${this.output}`)),
        timeoutMs,
      );
      const onData = (chunk: Buffer) => {
        this.onOutput?.(chunk.toString());
        this.output = (this.output + chunk.toString()).slice(-KEPT_OUTPUT);
        const match = !this.url && /at (http:\/\/[\d.]+:\d+)/.exec(this.output);
        if (match) {
          clearTimeout(timer);
          this.url = match[1]!;
          resolve(this.url);
        }
      };
      // The server prints its URL for people on stderr, its JSON log lines on stdout.
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`server exited with ${code} before it was ready:\n${this.output}`));
      });
    });
  }

  /** Sends a signal and waits for the process to end. */
  async kill(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill(signal);
    await exited;
  }

  /** SIGTERM (a server checkpoints and closes), then SIGKILL if it has not ended within `graceMs`. */
  async stop(graceMs = 30_000): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await this.kill('SIGTERM');
    clearTimeout(timer);
  }
}
