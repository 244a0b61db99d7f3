import { performance } from 'node:perf_hooks';
import { sleep } from './util.js';

/**
 * Fires `fire(intendedStart)` at `rate` per second for `seconds`, by the wall
 * clock: the i-th call is due at start + i/rate whether or not earlier
 * requests have answered (open loop). Latency is then measured from the
 * intended start, so a server that stalls is charged for the requests that
 * queue behind the stall instead of the harness politely waiting
 * (coordinated omission). Returns how late the harness itself fired at
 * worst, which tells whether the harness kept up.
 */
export async function openLoop(
  rate: number,
  seconds: number,
  fire: (intended: number) => void,
  stop: () => boolean = () => false,
): Promise<{ fired: number; lagMaxMs: number }> {
  if (rate <= 0 || seconds <= 0) return { fired: 0, lagMaxMs: 0 };
  const start = performance.now();
  const total = Math.floor(rate * seconds);
  const interval = 1000 / rate;
  let fired = 0;
  let lagMaxMs = 0;
  while (fired < total && !stop()) {
    const now = performance.now();
    while (fired < total && start + fired * interval <= now) {
      const intended = start + fired * interval;
      lagMaxMs = Math.max(lagMaxMs, now - intended);
      fired++;
      fire(intended);
    }
    const next = start + fired * interval;
    await sleep(Math.max(0, Math.min(5, next - performance.now())));
  }
  return { fired, lagMaxMs: Math.round(lagMaxMs * 100) / 100 };
}

/** Requests started and not yet answered, so a step can wait for its stragglers. */
export class InFlight {
  count = 0;

  track<T>(promise: Promise<T>): Promise<T> {
    this.count++;
    return promise.finally(() => this.count--);
  }
}
