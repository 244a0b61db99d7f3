let endOfTurn: Array<() => void> = [];

/**
 * Calls `fn` at this turn's end: on the next check of the event loop, and
 * before the next slice of any host's line (`Turns`) in this process. A
 * slice's answers come in the microtasks after it, so a send batched for the
 * next check (`setImmediate`) would otherwise go out behind the next slice:
 * every batch, the send's reply in a fan-out included, one slice late.
 */
export function atTurnEnd(fn: () => void): void {
  endOfTurn.push(fn);
  if (endOfTurn.length === 1) setImmediate(runTurnEnd);
}

/** One that throws stops neither the others nor the slice: its error is thrown on its own, as `setImmediate`'s would be. */
function runTurnEnd(): void {
  const due = endOfTurn;
  endOfTurn = [];
  for (const fn of due) {
    try {
      fn();
    } catch (err) {
      queueMicrotask(() => {
        throw err;
      });
    }
  }
}

/** How many deliveries to its own actors a host makes in one turn of the event loop (see `Turns`). */
export const TURN_HANDOVERS = 256;

interface Item {
  readonly subject: string;
  readonly size: number;
  /** Delivers items `from` to `to` (exclusive) of this one. */
  readonly run: (from: number, to: number) => void;
  /** Called once all of it is delivered. */
  readonly done: (() => void) | undefined;
  next: number;
}

/**
 * The host's line of deliveries to its actors, served at most
 * `perTurn` actors in one turn of the event loop. A fan-out to 10,000 local
 * actors does no I/O from the channel's decision to the last queue (queues
 * keep their events in memory), so handed over at once it would run all
 * 10,000 decisions before any socket is written or read again: the send's
 * own reply, a poll, a presence ping would all wait for the last of them.
 * In slices, they get their turn between two slices. Everything lined is
 * served in the order it was lined, so an actor gets two fan-outs in the
 * order they came; a message that comes on a subject something lined came on
 * waits behind it (`waits`), so order per subject is kept as the transport
 * keeps it. Between subjects there is no order to keep.
 */
export class Turns {
  private readonly items: Item[] = [];
  private head = 0;
  private budget: number;
  private turnEnds = false;
  private serving = false;
  /** How many items lined per subject. */
  private readonly subjects = new Map<string, number>();
  private emptied: Array<() => void> = [];

  constructor(private readonly perTurn = TURN_HANDOVERS) {
    this.budget = perTurn;
  }

  /** Whether something that came on `subject` still waits. */
  waits(subject: string): boolean {
    return this.subjects.has(subject);
  }

  /** Lines `size` deliveries, made by `run` a slice at a time after everything lined before, then calls `done`. */
  add(subject: string, size: number, run: (from: number, to: number) => void, done?: () => void): void {
    this.items.push({ subject, size, run, done, next: 0 });
    this.subjects.set(subject, (this.subjects.get(subject) ?? 0) + 1);
    this.serve();
  }

  /** Resolves once nothing is lined. */
  async whenEmpty(): Promise<void> {
    while (this.head < this.items.length) await new Promise<void>((resolve) => this.emptied.push(resolve));
  }

  private serve(): void {
    if (this.serving) return;
    this.serving = true;
    try {
      while (this.budget > 0 && this.head < this.items.length) {
        const item = this.items[this.head]!;
        const to = Math.min(item.size, item.next + this.budget);
        this.budget -= Math.max(1, to - item.next);
        const from = item.next;
        item.next = to;
        if (to > from) item.run(from, to);
        if (item.next < item.size) continue;
        this.items[this.head++] = undefined as never;
        const left = this.subjects.get(item.subject)! - 1;
        if (left === 0) this.subjects.delete(item.subject);
        else this.subjects.set(item.subject, left);
        item.done?.();
      }
    } finally {
      this.serving = false;
    }
    if (this.head === this.items.length) {
      this.items.length = 0;
      this.head = 0;
      const waiters = this.emptied;
      this.emptied = [];
      for (const resolve of waiters) resolve();
    } else if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items.splice(0, this.head);
      this.head = 0;
    }
    if (this.budget < this.perTurn) this.endTurnSoon();
  }

  /** At the turn's end the budget is whole again, and what waits takes it. */
  private endTurnSoon(): void {
    if (this.turnEnds) return;
    this.turnEnds = true;
    setImmediate(() => {
      runTurnEnd();
      this.turnEnds = false;
      this.budget = this.perTurn;
      this.serve();
    });
  }
}
