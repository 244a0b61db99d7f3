import type { Timers } from '../behavior.js';

/** Timers that never fire by themselves: a test fires them (`BehaviorTestKit.fire`, `advance`). */
export class FakeTimers implements Timers {
  /** Armed timers, by name: when each is due, on the kit's clock. */
  readonly armed = new Map<string, number>();

  constructor(private readonly clock: () => number) {}

  set(name: string, delayMs: number): void {
    this.armed.set(name, this.clock() + delayMs);
  }

  cancel(name: string): void {
    this.armed.delete(name);
  }

  has(name: string): boolean {
    return this.armed.has(name);
  }

  /** The armed timer due first, if it is due at `now`. */
  due(now: number): string | undefined {
    let first: [string, number] | undefined;
    for (const entry of this.armed) if (entry[1] <= now && (!first || entry[1] < first[1])) first = entry;
    return first?.[0];
  }
}
