import type { StoreReader } from '../behavior.js';
import type { ScanOptions, StoreKey, StoreRow, StoreWrite } from '../ports/index.js';

/** The store an actor reads in a unit test: rows in memory, written by the rows its events write. */
export class MemoryStore implements StoreReader {
  private readonly tables = new Map<string, Map<string, Uint8Array>>();

  async get(key: StoreKey): Promise<Uint8Array | undefined> {
    return this.tables.get(`${key.table}/${key.partition}`)?.get(key.sort);
  }

  async *scan(table: string, partition: string, opts: ScanOptions = {}): AsyncIterable<StoreRow> {
    const rows = [...(this.tables.get(`${table}/${partition}`) ?? new Map<string, Uint8Array>())]
      .filter(([sort]) => inRange(sort, opts))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    if (opts.reverse) rows.reverse();
    for (const [sort, value] of rows.slice(0, opts.limit ?? rows.length)) yield { sort, value };
  }

  write(writes: StoreWrite[]): void {
    for (const w of writes) {
      const id = `${w.table}/${w.partition}`;
      const rows = this.tables.get(id) ?? new Map<string, Uint8Array>();
      this.tables.set(id, rows);
      if (w.op === 'put') rows.set(w.sort, w.value);
      else rows.delete(w.sort);
    }
  }
}

function inRange(sort: string, { gt, gte, lt, lte }: ScanOptions): boolean {
  return (
    (gt === undefined || sort > gt) &&
    (gte === undefined || sort >= gte) &&
    (lt === undefined || sort < lt) &&
    (lte === undefined || sort <= lte)
  );
}
