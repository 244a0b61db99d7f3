import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcSample {
  rssBytes: number;
  /** Highest RSS the process ever had (VmHWM). */
  peakRssBytes: number;
  /** User plus system CPU time since the process started. */
  cpuSeconds: number;
  /** A server of several processes (a cluster): each one; the fields above are their sums. */
  processes?: NamedSample[];
}

export interface NamedSample {
  name: string;
  pid: number;
  rssBytes: number;
  peakRssBytes: number;
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
export function sampleProcess(pid: number | undefined): ProcSample | undefined {
  if (pid === undefined) return undefined;
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

/**
 * The sum over several processes (a cluster's edges and actor hosts), each
 * one kept too. The summed peak adds peaks that may not have coincided: an
 * upper bound. Undefined when none of them can be read.
 */
export function sampleProcesses(pids: Array<{ name: string; pid: number }>): ProcSample | undefined {
  const processes: NamedSample[] = pids.flatMap(({ name, pid }) => {
    const one = sampleProcess(pid);
    return one
      ? [{ name, pid, rssBytes: one.rssBytes, peakRssBytes: one.peakRssBytes, cpuSeconds: one.cpuSeconds }]
      : [];
  });
  if (processes.length === 0) return undefined;
  const sum = (field: 'rssBytes' | 'peakRssBytes' | 'cpuSeconds') => processes.reduce((n, p) => n + p[field], 0);
  return { rssBytes: sum('rssBytes'), peakRssBytes: sum('peakRssBytes'), cpuSeconds: sum('cpuSeconds'), processes };
}

/** The processes `pid` started that still run (an embedded server's edge workers). */
function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
      readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number),
    );
  } catch {
    return [];
  }
}

/**
 * A process and the processes it started (an embedded server with
 * `EDGE_WORKERS`: its edge workers), summed as `sampleProcesses` does; just
 * the process when it started none.
 */
export function sampleProcessTree(pid: number | undefined): ProcSample | undefined {
  const children = pid === undefined ? [] : childrenOf(pid);
  if (children.length === 0) return sampleProcess(pid);
  return sampleProcesses([
    { name: 'server', pid: pid! },
    ...children.map((child, i) => ({ name: `edge-worker-${i}`, pid: child })),
  ]);
}

/** The file-descriptor limit of this process (each live queue holds a socket on both sides). */
export function openFileLimit(): number {
  try {
    return Number(execFileSync('sh', ['-c', 'ulimit -n']).toString().trim()) || 1024;
  } catch {
    return 1024;
  }
}
