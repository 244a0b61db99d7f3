import { spawn, type ChildProcess } from 'node:child_process';
import type { Cleanups } from './target.js';

/**
 * A busy neighbour: `count` processes that each burn one core until
 * stopped, each stopped by its own pid (also on Ctrl-C, through `cleanups`).
 */
export function burnCores(count: number, cleanups: Cleanups): () => Promise<void> {
  const children: ChildProcess[] = [];
  for (let i = 0; i < count; i++) {
    children.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  }
  const stop = async () => {
    cleanups.delete(stop);
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return resolve();
            child.once('exit', () => resolve());
            process.kill(child.pid, 'SIGKILL');
          }),
      ),
    );
  };
  cleanups.add(stop);
  return stop;
}
