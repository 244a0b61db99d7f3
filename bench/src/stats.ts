import * as hdr from 'hdr-histogram-js';

export interface Percentiles {
  p50: number;
  p95: number;
  p99: number;
  max: number;
  mean: number;
  count: number;
}

/**
 * Latencies in an HDR histogram (microseconds, 3 significant digits), so
 * that a run of millions of samples keeps exact-enough tails in fixed memory.
 */
export class Latency {
  private readonly histogram = hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 3_600_000_000,
    numberOfSignificantValueDigits: 3,
    bitBucketSize: 'packed',
    useWebAssembly: false,
  });

  recordMs(ms: number): void {
    this.histogram.recordValue(Math.max(1, Math.round(ms * 1000)));
  }

  get count(): number {
    return this.histogram.totalCount;
  }

  add(other: Latency): void {
    this.histogram.add(other.histogram);
  }

  /** Milliseconds, two decimals; every figure 0 when nothing was recorded. */
  summary(): Percentiles {
    const h = this.histogram;
    const ms = (us: number) => Math.round(us / 10) / 100;
    if (h.totalCount === 0) return { p50: 0, p95: 0, p99: 0, max: 0, mean: 0, count: 0 };
    // A percentile is the top of its bucket, which can pass the exact max by a rounding step: clamp.
    const max = ms(h.maxValue);
    const at = (p: number) => Math.min(max, ms(h.getValueAtPercentile(p)));
    return {
      p50: at(50),
      p95: at(95),
      p99: at(99),
      max,
      mean: ms(h.mean),
      count: h.totalCount,
    };
  }

  /** [latency ms, percentile] pairs for a CDF chart. */
  cdf(): Array<[number, number]> {
    if (this.histogram.totalCount === 0) return [];
    const points = [0.1, 1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 98, 99, 99.5, 99.9, 100];
    const max = this.histogram.maxValue;
    return points.map((p) => [Math.round(Math.min(max, this.histogram.getValueAtPercentile(p)) / 10) / 100, p]);
  }
}

export const pick = (s: Percentiles) => ({ p50: s.p50, p95: s.p95, p99: s.p99, max: s.max });
export const pickShort = (s: Percentiles) => ({ p50: s.p50, p99: s.p99, max: s.max });

/** a / b rounded, or null where the baseline has no figure to compare with. */
export function ratio(a: number, b: number): number | null {
  return b > 0 && Number.isFinite(a) ? Math.round((a / b) * 1000) / 1000 : null;
}
