import type { Timers } from './behavior.js';

interface Armed {
  /** When the timer is due (ms since the epoch); undefined once cancelled. */
  due: number | undefined;
  /** The Node timer, set for `at` or earlier. */
  handle: NodeJS.Timeout;
  at: number;
}

/**
 * Timers of one actor. Firing only enqueues; `clear` stops them all.
 *
 * A timer set again for later, or cancelled, keeps its Node timer: when that
 * fires it sets itself again for the rest, or does nothing. A queue sets its
 * idle and heartbeat timers at every poll and cancels the heartbeat at every
 * event: a Node timer made and cleared each time was a setTimeout and two
 * clearTimeouts per delivered event, and their garbage.
 */
export class ActorTimers implements Timers {
  private readonly armed = new Map<string, Armed>();

  constructor(private readonly fire: (name: string) => void) {}

  set(name: string, delayMs: number): void {
    const due = Date.now() + delayMs;
    const armed = this.armed.get(name);
    if (armed && armed.at <= due) armed.due = due;
    else {
      if (armed) clearTimeout(armed.handle);
      this.arm(name, due);
    }
  }

  cancel(name: string): void {
    const armed = this.armed.get(name);
    if (armed) armed.due = undefined;
  }

  has(name: string): boolean {
    return this.armed.get(name)?.due !== undefined;
  }

  get count(): number {
    let count = 0;
    for (const armed of this.armed.values()) if (armed.due !== undefined) count++;
    return count;
  }

  clear(): void {
    for (const armed of this.armed.values()) clearTimeout(armed.handle);
    this.armed.clear();
  }

  private arm(name: string, due: number): void {
    const handle = setTimeout(() => this.ring(name, armed), Math.max(0, due - Date.now()));
    handle.unref?.();
    const armed: Armed = { due, handle, at: due };
    this.armed.set(name, armed);
  }

  /** The Node timer fired: the actor's timer is due, or later (set again), or was cancelled. */
  private ring(name: string, armed: Armed): void {
    if (this.armed.get(name) !== armed) return;
    const due = armed.due;
    if (due === undefined) {
      this.armed.delete(name);
      return;
    }
    const now = Date.now();
    if (due > now) {
      this.arm(name, due);
      return;
    }
    this.armed.delete(name);
    this.fire(name);
  }
}
