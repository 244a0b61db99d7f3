import type cassandra from 'cassandra-driver';
import {
  silentLogger,
  type Fence,
  type Logger,
  type ScanOptions,
  type StateStore,
  type StoreKey,
  type StoreRow,
  type StoreWrite,
} from '@chat/runtime';
import { EpochTable } from './cassandra-epochs.js';
import { checkKey, groupWrites, lastWriteOfEachRow, timestampOf } from './cassandra-writes.js';
import { openKeyspace, type CassandraOptions } from './migrations.js';

export interface CassandraStoreOptions extends CassandraOptions {
  /** How stale this process's view of a shard's epoch may get before a fenced write re-reads it; default 1000. */
  epochRefreshMs?: number;
  /** Rows per page of a scan; default 1000. */
  pageSize?: number;
  /** Largest multi-partition batch, under Cassandra's `batch_size_fail_threshold` (50 KiB); default 40 KiB. */
  maxBatchBytes?: number;
}

const PUT = 'INSERT INTO store_rows (tbl, part, sort, value) VALUES (?, ?, ?, ?) USING TIMESTAMP ?';
const DEL = 'DELETE FROM store_rows USING TIMESTAMP ? WHERE tbl = ? AND part = ? AND sort = ?';
const GET = 'SELECT value FROM store_rows WHERE tbl = ? AND part = ? AND sort = ?';

/**
 * The cluster's state store on Cassandra: the port's tables are one CQL table
 * `store_rows` whose partition key is (table, partition), so that a port
 * partition is a Cassandra partition, read in `sort` order.
 *
 * Every statement is prepared and runs at LOCAL_QUORUM (ONE on a single
 * node). `sync` asks for nothing more: Cassandra acknowledges a write once it
 * is in the commit log of a quorum of replicas, and whether that is on disk
 * depends on the server's `commitlog_sync`. With the default `periodic`
 * (10 s, as the infra's node is configured), an acknowledged write survives a
 * crash of the Cassandra process but may be lost if the machine loses power
 * within the period, unless another replica has it; `batch` or `group` mode
 * makes every acknowledged write fsynced. `open` logs the mode it finds.
 *
 * Write timestamps carry the journal position (see cassandra-writes.ts), which
 * is what makes fencing safe here (see cassandra-epochs.ts).
 */
export class CassandraStore implements StateStore {
  private readonly epochs: EpochTable;
  private readonly pageSize: number;
  private readonly maxBatchBytes: number;

  private constructor(
    /** The keyspace's session, for other tables of the namespace (the shard leases). */
    readonly client: cassandra.Client,
    private readonly keyspace: string,
    opts: CassandraStoreOptions,
  ) {
    this.epochs = new EpochTable(client, opts.epochRefreshMs ?? 1000);
    this.pageSize = opts.pageSize ?? 1000;
    this.maxBatchBytes = opts.maxBatchBytes ?? 40 * 1024;
  }

  static async open(opts: CassandraStoreOptions): Promise<CassandraStore> {
    const client = await openKeyspace(opts);
    const store = new CassandraStore(client, opts.keyspace, opts);
    await store.reportDurability(opts.log ?? silentLogger);
    return store;
  }

  async get(key: StoreKey): Promise<Uint8Array | undefined> {
    checkKey(key);
    const row = (await this.client.execute(GET, [key.table, key.partition, key.sort])).first();
    return row ? bytesOf(row['value']) : undefined;
  }

  write(writes: StoreWrite[], opts: { sync?: boolean; fence?: Fence; position?: number } = {}): Promise<void> {
    const done = this.apply(writes, opts);
    if (opts.fence) this.epochs.track(opts.fence.shard, done);
    return done;
  }

  private async apply(writes: StoreWrite[], opts: { fence?: Fence; position?: number }): Promise<void> {
    for (const w of writes) checkKey(w);
    const timestamp = timestampOf(opts.position);
    if (opts.fence) await this.epochs.check(opts.fence);
    for (const group of groupWrites(lastWriteOfEachRow(writes), this.maxBatchBytes)) {
      const statements = group.writes.map((w) => {
        const stamp = w.shared ? timestampOf(undefined) : timestamp;
        return w.op === 'put'
          ? { query: PUT, params: [w.table, w.partition, w.sort, asBuffer(w.value), stamp] }
          : { query: DEL, params: [stamp, w.table, w.partition, w.sort] };
      });
      // Explicit timestamps make a repeated statement harmless, so the driver may retry it.
      if (statements.length === 1) {
        await this.client.execute(statements[0]!.query, statements[0]!.params, { isIdempotent: true });
      } else {
        await this.client.batch(statements, { logged: group.multiPartition, isIdempotent: true });
      }
    }
  }

  /** Pages through the partition with the driver's paging state, one page in memory at a time. */
  async *scan(table: string, partition: string, opts: ScanOptions = {}): AsyncIterable<StoreRow> {
    checkKey({ table, partition });
    if (opts.limit === 0) return;
    const where = ['tbl = ?', 'part = ?'];
    const params: unknown[] = [table, partition];
    const bound = (op: string, value: string | undefined) => {
      if (value === undefined) return false;
      where.push(`sort ${op} ?`);
      params.push(value);
      return true;
    };
    if (!bound('>', opts.gt)) bound('>=', opts.gte);
    if (!bound('<', opts.lt)) bound('<=', opts.lte);
    let query = `SELECT sort, value FROM store_rows WHERE ${where.join(' AND ')}`;
    if (opts.reverse) query += ' ORDER BY sort DESC';
    // A negative limit means none, as in the embedded store.
    const limit = opts.limit !== undefined && opts.limit > 0 ? opts.limit : undefined;
    if (limit !== undefined) {
      query += ' LIMIT ?';
      params.push(limit);
    }
    let pageState: string | undefined;
    do {
      const rs = await this.client.execute(query, params, {
        fetchSize: Math.min(this.pageSize, limit ?? this.pageSize),
        ...(pageState ? { pageState } : {}),
      });
      for (const row of rs.rows) yield { sort: row['sort'] as string, value: bytesOf(row['value']) };
      pageState = rs.pageState ?? undefined;
    } while (pageState);
  }

  claim(fence: Fence): Promise<number> {
    return this.epochs.claim(fence);
  }

  close(): Promise<void> {
    return this.client.shutdown();
  }

  /** Drops the whole namespace's keyspace (tests and throwaway clusters). */
  async dropNamespace(): Promise<void> {
    await this.client.execute(`DROP KEYSPACE IF EXISTS ${this.keyspace}`, [], { prepare: false });
  }

  private async reportDurability(log: Logger): Promise<void> {
    try {
      const rs = await this.client.execute(
        "SELECT name, value FROM system_views.settings WHERE name IN ('commitlog_sync', 'commitlog_sync_period')",
      );
      const settings = Object.fromEntries(rs.rows.map((r) => [r['name'] as string, r['value'] as string]));
      const fsynced = settings['commitlog_sync'] !== 'periodic';
      (fsynced ? log.info : log.warn).call(
        log,
        { keyspace: this.keyspace, ...settings },
        fsynced
          ? 'cassandra fsyncs the commit log before acknowledging writes'
          : 'cassandra acknowledges writes before fsync (commitlog_sync periodic): sync writes rely on replicas',
      );
    } catch (err) {
      // system_views exists from Cassandra 4.0 on; the report is informative only.
      log.warn({ err }, 'could not read cassandra commitlog_sync setting');
    }
  }
}

/** A view on the driver's Buffer, so callers get a plain Uint8Array like the embedded store returns. */
function bytesOf(value: unknown): Uint8Array {
  if (value === null || value === undefined) return new Uint8Array(0);
  const buf = value as Buffer;
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
}

const asBuffer = (value: Uint8Array) => Buffer.from(value.buffer, value.byteOffset, value.byteLength);
