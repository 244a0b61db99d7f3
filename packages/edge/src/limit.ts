import { MIN_ANSWERS } from './quickest.js';

/**
 * How much work the edge lets in at once, moved by how long work waits (a
 * gradient limit, as TCP Vegas or Netflix's concurrency-limits): each
 * answer's wait is its time beyond its route's floor (what the route costs
 * when nothing queues). At the end of each interval with MIN_ANSWERS or
 * more, a median wait over `targetMs` cuts the limit by `targetMs / wait`
 * (to half at most); one within it raises the limit by a quarter (one at
 * least), up to `max`. It never goes under `min`: a lone request is never
 * refused by it. A server that answers in time never feels it; one whose
 * admitted work waits lets in only what it answers in time.
 */
export class Limit {
  private current: number;
  private since: number;
  private waits: number[] = [];

  constructor(
    private readonly min: number,
    private readonly max: number,
    private readonly targetMs: number,
    private readonly intervalMs: number,
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.current = max;
    this.since = clock();
  }

  /** The work that may be in flight now. */
  get value(): number {
    this.roll();
    return this.current;
  }

  /** An answer that took `waitMs` more than its route's floor. */
  record(waitMs: number): void {
    this.roll();
    this.waits.push(waitMs);
  }

  private roll(): void {
    const t = this.clock();
    if (t - this.since < this.intervalMs) return;
    // An interval that ended long ago says nothing of now.
    if (t - this.since < 2 * this.intervalMs && this.waits.length >= MIN_ANSWERS) this.adjust(median(this.waits));
    this.waits = [];
    this.since = t;
  }

  private adjust(waitMs: number): void {
    const next =
      waitMs > this.targetMs
        ? Math.floor(this.current * Math.max(0.5, this.targetMs / waitMs))
        : this.current + Math.max(1, Math.floor(this.current / 4));
    this.current = Math.min(this.max, Math.max(this.min, next));
  }
}

function median(values: number[]): number {
  const sorted = values.sort((a, b) => a - b);
  return sorted[sorted.length >> 1]!;
}
