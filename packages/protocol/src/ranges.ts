import type { IdRanges } from './channel.js';

/** Read state is kept as sorted, disjoint, inclusive id ranges: reading everything stays one range. */
export function inRanges(ranges: IdRanges, id: number): boolean {
  let lo = 0;
  let hi = ranges.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const [from, to] = ranges[mid]!;
    if (id < from) hi = mid - 1;
    else if (id > to) lo = mid + 1;
    else return true;
  }
  return false;
}

export function addRange(ranges: IdRanges, from: number, to: number): IdRanges {
  const out: IdRanges = [];
  let merged: [number, number] = [from, to];
  for (const [a, b] of ranges) {
    if (b < merged[0] - 1 || a > merged[1] + 1) out.push([a, b]);
    else merged = [Math.min(a, merged[0]), Math.max(b, merged[1])];
  }
  out.push(merged);
  return out.sort((x, y) => x[0] - y[0]);
}

export function removeId(ranges: IdRanges, id: number): IdRanges {
  const out: IdRanges = [];
  for (const [a, b] of ranges) {
    if (id < a || id > b) out.push([a, b]);
    else {
      if (a <= id - 1) out.push([a, id - 1]);
      if (id + 1 <= b) out.push([id + 1, b]);
    }
  }
  return out;
}
