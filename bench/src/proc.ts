import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';

export interface ProcSample {
  rssBytes: number;
  /** Highest RSS the process ever had (VmHWM). */
  peakRssBytes: number;
  /** User plus system CPU time since the process started. */
  cpuSeconds: number;
}

let clockTicks: number | undefined;

/** Clock ticks per second for /proc/<pid>/stat; 100 on every common Linux, asked once. */
function ticksPerSecond(): number {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/** Memory and CPU of a process from /proc; undefined when it is gone or not on this machine. */
export function sampleProcess(pid: number): ProcSample | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces and parentheses: fields are counted after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cpuSeconds = (Number(fields[11]) + Number(fields[12])) / ticksPerSecond();
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
    return { rssBytes: kb('VmRSS'), peakRssBytes: kb('VmHWM'), cpuSeconds };
  } catch {
    return undefined;
  }
}

/** The file-descriptor limit of this process (each live queue holds a socket on both sides). */
export function openFileLimit(): number {
  try {
    return Number(execFileSync('sh', ['-c', 'ulimit -n']).toString().trim()) || 1024;
  } catch {
    return 1024;
  }
}

/**
 * A server the harness started as a child process. It is ready when it
 * prints `... at http://host:port`; only the tail of its output is kept, so
 * a chatty server cannot grow the harness's memory during a long run.
 */
export class ChildServer {
  url = '';
  private child: ChildProcess | undefined;
  private tail = '';

  constructor(
    private readonly command: string[],
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get log(): string {
    return this.tail;
  }

  start(timeoutMs = 120_000): Promise<string> {
    const [cmd, ...args] = this.command;
    const child = spawn(cmd!, args, { env: { ...process.env, ...this.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`server not ready in ${timeoutMs} ms:\n${this.tail}`)),
        timeoutMs,
      );
      const keep = (chunk: Buffer) => {
        this.tail = (this.tail + chunk.toString()).slice(-16_384);
        const match = !this.url && /at (http:\/\/[\d.]+:\d+)/.exec(this.tail);
        if (match) {
          clearTimeout(timer);
          this.url = match[1]!;
          resolve(this.url);
        }
      };
      child.stdout!.on('data', keep);
      child.stderr!.on('data', keep);
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`server exited (${code ?? signal}) before it was ready:\n${this.tail}`));
      });
    });
  }

  sample(): ProcSample | undefined {
    return this.pid === undefined ? undefined : sampleProcess(this.pid);
  }

  /** SIGTERM (the server checkpoints and closes), then SIGKILL if it has not ended in time. */
  async stop(graceMs = 30_000): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  }
}
