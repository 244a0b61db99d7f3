import type { JournalPartition } from '@chat/runtime';
import type { Segment } from './segment.js';

/** Where one durable record lives. */
export interface IndexEntry {
  position: number;
  segment: Segment;
  offset: number;
  length: number;
}

export const partitionKey = (p: JournalPartition) => `${p.topic}\u0000${p.shard}`;

/**
 * Per partition, the locations of its records in position order. Entries are
 * only ever added at the end (positions come from one increasing sequence)
 * and dropped from the front (release), so a sorted array is enough.
 */
export class PartitionIndex {
  private readonly entries = new Map<string, IndexEntry[]>();

  add(key: string, entry: IndexEntry): void {
    let list = this.entries.get(key);
    if (!list) this.entries.set(key, (list = []));
    list.push(entry);
    entry.segment.partitions.set(key, entry.position);
  }

  /**
   * The first entry above `after` and the ones following it in the same
   * segment, up to `maxBytes` of file span (one disk read); empty at the end.
   */
  run(key: string, after: number, maxBytes: number): IndexEntry[] {
    const list = this.entries.get(key);
    if (!list) return [];
    const start = firstAfter(list, after);
    if (start >= list.length) return [];
    const first = list[start]!;
    let end = start + 1;
    while (end < list.length) {
      const e = list[end]!;
      if (e.segment !== first.segment || e.offset + e.length - first.offset > maxBytes) break;
      end++;
    }
    return list.slice(start, end);
  }

  /** Forgets the entries at or below `upTo`. */
  drop(key: string, upTo: number): void {
    const list = this.entries.get(key);
    if (!list) return;
    list.splice(0, firstAfter(list, upTo));
    if (list.length === 0) this.entries.delete(key);
  }
}

/** Index of the first entry whose position is above `after` (binary search). */
function firstAfter(list: IndexEntry[], after: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]!.position <= after) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
