import { execFileSync, spawn } from 'node:child_process';

const RAISED = 'BENCH_NOFILE_RAISED';
/** Where an "unlimited" hard limit is capped: the kernel refuses more than nr_open (1,048,576 by default). */
const CEILING = 1_048_576;

function shell(command: string): string {
  return execFileSync('sh', ['-c', command]).toString().trim();
}

/**
 * Each live queue holds a socket in the harness and one in the server, and
 * most systems start processes with a soft limit of 1,024 open files under
 * a much higher hard limit. Node cannot raise its own, so the harness runs
 * itself again under `ulimit -n <hard>`; the servers it starts inherit it.
 * Answers the child's exit code, or undefined when nothing needed raising
 * (or it was raised already) and this process should go on.
 */
export async function rerunWithMoreFiles(): Promise<number | undefined> {
  if (process.env[RAISED]) return undefined;
  let soft: number;
  let hard: number;
  try {
    soft = Number(shell('ulimit -Sn'));
    const raw = shell('ulimit -Hn');
    hard = raw === 'unlimited' ? CEILING : Math.min(Number(raw), CEILING);
  } catch {
    return undefined;
  }
  if (!(hard > soft)) return undefined;
  const [node, ...argv] = process.argv;
  const child = spawn(
    'sh',
    ['-c', 'ulimit -n "$0" 2>/dev/null; exec "$@"', String(hard), node!, ...process.execArgv, ...argv],
    {
      stdio: 'inherit',
      env: { ...process.env, [RAISED]: `${soft}->${hard}` },
    },
  );
  // Ctrl-C reaches the child from the terminal: it stops its servers itself, this one waits for it.
  process.on('SIGINT', () => undefined);
  process.on('SIGTERM', () => child.kill('SIGTERM'));
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? (signal ? 130 : 1))));
}
