import type { Timers } from './behavior.js';

/** Timers of one actor. Firing only enqueues; `clear` stops them all. */
export class ActorTimers implements Timers {
  private readonly handles = new Map<string, NodeJS.Timeout>();

  constructor(private readonly fire: (name: string) => void) {}

  set(name: string, delayMs: number): void {
    this.cancel(name);
    const handle = setTimeout(() => {
      this.handles.delete(name);
      this.fire(name);
    }, delayMs);
    handle.unref?.();
    this.handles.set(name, handle);
  }

  cancel(name: string): void {
    const handle = this.handles.get(name);
    if (handle) clearTimeout(handle);
    this.handles.delete(name);
  }

  has(name: string): boolean {
    return this.handles.has(name);
  }

  get count(): number {
    return this.handles.size;
  }

  clear(): void {
    for (const handle of this.handles.values()) clearTimeout(handle);
    this.handles.clear();
  }
}
