/**
 * A bounded FIFO that one consumer drains one item at a time. `offer`
 * refuses when full instead of growing: back-pressure reaches the caller.
 * The consumer returns a promise only for an item it must wait on: the
 * next item waits for it. Items it finishes at once are drained in the
 * same turn, with no promise between them.
 */
export class Mailbox<T> {
  private readonly items: T[] = [];
  private head = 0;
  private running = false;
  private idle: Array<() => void> = [];

  constructor(
    private readonly capacity: number,
    private readonly consume: (item: T) => Promise<void> | void,
  ) {}

  get size(): number {
    return this.items.length - this.head;
  }

  get busy(): boolean {
    return this.running;
  }

  /** Queues the item; false when the mailbox is full. */
  offer(item: T): boolean {
    if (this.size >= this.capacity) return false;
    this.items.push(item);
    if (!this.running) {
      this.running = true;
      this.drain();
    }
    return true;
  }

  /** Resolves once the mailbox is empty and nothing is being processed. */
  whenIdle(): Promise<void> {
    if (!this.running && this.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  private drain(): void {
    while (this.head < this.items.length) {
      const item = this.items[this.head]!;
      this.items[this.head++] = undefined as T;
      if (this.head > 1024 && this.head * 2 > this.items.length) {
        this.items.splice(0, this.head);
        this.head = 0;
      }
      let pending: Promise<void> | void;
      try {
        pending = this.consume(item);
      } catch (err) {
        // As a failed wait below: never thrown at whoever offered the item.
        pending = Promise.reject(err);
      }
      if (pending) {
        // A failure stays unhandled, as a bug: the mailbox stops.
        void pending.then(() => this.drain());
        return;
      }
    }
    this.items.length = 0;
    this.head = 0;
    this.running = false;
    const waiters = this.idle;
    this.idle = [];
    for (const resolve of waiters) resolve();
  }
}
