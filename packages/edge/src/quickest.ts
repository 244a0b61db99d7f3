/** An interval with fewer answers than this says nothing (a quiet server's one slow upload is not queueing). */
export const MIN_ANSWERS = 4;

/**
 * The quickest answer of the interval under way, of the last whole one
 * (MIN_ANSWERS at least, and just before this one), and of every whole
 * interval so far (the floor: what the answers cost when nothing queues).
 */
export class Quickest {
  private since = 0;
  private now = Infinity;
  private answers = 0;
  private last = Infinity;
  private floor = Infinity;

  constructor(
    private readonly intervalMs: number,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  /** The quickest answer of the last whole interval; undefined when it had too few. */
  get lastMs(): number | undefined {
    this.roll();
    return this.last === Infinity ? undefined : this.last;
  }

  get floorMs(): number | undefined {
    this.roll();
    return this.floor === Infinity ? undefined : this.floor;
  }

  record(ms: number): void {
    this.roll();
    this.now = Math.min(this.now, ms);
    this.answers++;
  }

  private roll(): void {
    const t = this.clock();
    if (t - this.since < this.intervalMs) return;
    const whole = t - this.since < 2 * this.intervalMs && this.answers >= MIN_ANSWERS;
    this.last = whole ? this.now : Infinity;
    if (whole) this.floor = Math.min(this.floor, this.now);
    this.now = Infinity;
    this.answers = 0;
    this.since = t;
  }
}
