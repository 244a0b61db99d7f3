import cassandra from 'cassandra-driver';

const { consistencies } = cassandra.types;

/** One row of the lease table: who owns a shard, as which epoch, until when (wall-clock ms). */
export interface Lease {
  shard: number;
  owner: string | null;
  epoch: number;
  expiresAt: number;
}

/**
 * (The session maps bigint columns to JS BigInt: `useBigIntAsLong`.)
 *
 * Shard leases in Cassandra (cql/003-leases.cql). Every change is a
 * lightweight transaction conditioned on the row as last read, so two hosts
 * racing for a shard cannot both win, and each new owner gets a higher epoch.
 * Reads are SERIAL so they see every committed transaction.
 */
export class LeaseTable {
  constructor(private readonly client: cassandra.Client) {}

  private async exec(query: string, params: unknown[], serial = false) {
    return this.client.execute(query, params, {
      prepare: true,
      consistency: serial ? consistencies.serial : consistencies.localQuorum,
      serialConsistency: consistencies.serial,
    });
  }

  async list(): Promise<Lease[]> {
    const result = await this.exec('SELECT shard, owner, epoch, expires_at FROM leases', [], true);
    return result.rows.map((row) => ({
      shard: row.shard as number,
      owner: (row.owner as string | null) ?? null,
      epoch: Number(row.epoch ?? 0),
      expiresAt: Number(row.expires_at ?? 0),
    }));
  }

  /**
   * Takes a shard whose lease is `seen` (undefined: never leased) if it is
   * still as seen and free (expired or released). Resolves with the new
   * epoch, or undefined when another host got there first.
   */
  async acquire(shard: number, owner: string, seen: Lease | undefined, leaseMs: number): Promise<number | undefined> {
    const expires = Date.now() + leaseMs;
    if (!seen) {
      const result = await this.exec(
        'INSERT INTO leases (shard, owner, epoch, expires_at) VALUES (?, ?, ?, ?) IF NOT EXISTS',
        [shard, owner, 1n, BigInt(expires)],
      );
      return applied(result) ? 1 : undefined;
    }
    const epoch = seen.epoch + 1;
    const result = await this.exec(
      'UPDATE leases SET owner = ?, epoch = ?, expires_at = ? WHERE shard = ? IF epoch = ? AND expires_at = ?',
      [owner, BigInt(epoch), BigInt(expires), shard, BigInt(seen.epoch), BigInt(seen.expiresAt)],
    );
    return applied(result) ? epoch : undefined;
  }

  /** Extends a held lease; false when it is no longer ours. */
  async renew(shard: number, owner: string, epoch: number, leaseMs: number): Promise<boolean> {
    const result = await this.exec('UPDATE leases SET expires_at = ? WHERE shard = ? IF owner = ? AND epoch = ?', [
      BigInt(Date.now() + leaseMs),
      shard,
      owner,
      BigInt(epoch),
    ]);
    return applied(result);
  }

  /** Frees a held lease at once (a hand-off), keeping its epoch for the next owner to pass. */
  async release(shard: number, owner: string, epoch: number): Promise<boolean> {
    const result = await this.exec('UPDATE leases SET expires_at = 0 WHERE shard = ? IF owner = ? AND epoch = ?', [
      shard,
      owner,
      BigInt(epoch),
    ]);
    return applied(result);
  }

  /** Says this host is alive for `ttlMs`. */
  async heartbeat(hostId: string, ttlMs: number): Promise<void> {
    await this.exec('INSERT INTO hosts (host_id, seen_at) VALUES (?, ?) USING TTL ?', [
      hostId,
      BigInt(Date.now()),
      Math.max(1, Math.ceil(ttlMs / 1000)),
    ]);
  }

  async leave(hostId: string): Promise<void> {
    await this.exec('DELETE FROM hosts WHERE host_id = ?', [hostId]);
  }

  async liveHosts(): Promise<string[]> {
    const result = await this.exec('SELECT host_id FROM hosts', []);
    return result.rows.map((row) => row.host_id as string).sort();
  }
}

const applied = (result: cassandra.types.ResultSet) => result.wasApplied();
