import { execFileSync } from 'node:child_process';
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

/** The file-descriptor limit of this process (each live queue holds a socket on both sides). */
export function openFileLimit(): number {
  try {
    return Number(execFileSync('sh', ['-c', 'ulimit -n']).toString().trim()) || 1024;
  } catch {
    return 1024;
  }
}
