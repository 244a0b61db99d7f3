// Drops the Cassandra keyspaces of test and bench namespaces (t_…, f_…, bench_…) that earlier runs
// left behind (a killed run never drops its own). Thousands of them made Cassandra's start take
// over three minutes, past infra's wait. Run only on engines nobody else is using: test.sh calls
// it when it started Cassandra itself. Prints how many it dropped and how long it took.
import cassandra from 'cassandra-driver';

const points = (process.env.CASSANDRA_CONTACT_POINTS ?? '127.0.0.1:9042').split(',');
const client = new cassandra.Client({
  contactPoints: points,
  localDataCenter: process.env.CASSANDRA_LOCAL_DC ?? 'datacenter1',
  socketOptions: { readTimeout: 120_000 },
});
const started = Date.now();
await client.connect();
const { rows } = await client.execute('SELECT keyspace_name FROM system_schema.keyspaces');
const names = rows.map((r) => r.keyspace_name).filter((n) => /^(t|f|bench)_[0-9a-z_]+$/.test(n));
let dropped = 0;
for (const name of names) {
  await client.execute(`DROP KEYSPACE IF EXISTS ${name}`);
  if (++dropped % 100 === 0) console.error(`prune: ${dropped} of ${names.length} keyspaces dropped`);
}
await client.shutdown();
console.error(`prune: dropped ${dropped} leftover test keyspaces in ${((Date.now() - started) / 1000).toFixed(1)} s`);
