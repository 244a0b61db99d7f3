import test from 'ava';
import { realm } from './fixtures.js';

type Kit = Awaited<ReturnType<typeof realm>>;

async function loginAll(kit: Kit, ids: number[], limit: number) {
  const results = [];
  for (const id of ids) results.push(await login(kit, id, limit));
  return results;
}

const activeIds = (kit: Kit) =>
  Object.values((kit.state as { accounts: Record<number, { id: number; isActive: boolean }> }).accounts)
    .filter((a) => a.isActive)
    .map((a) => a.id);

/** One user coming online: the presence rows written, and the queue events handed to UserActors. */
async function login(kit: Kit, userId: number, limit: number) {
  const result = await kit.run({
    type: 'realm.reportPresence',
    user_id: userId,
    status: 'active',
    event_user_limit: limit,
  });
  if (result.error) throw result.error;
  const delivered = result.fanouts.reduce(
    (sum, f) => sum + f.keys.length * ('events' in f.body ? f.body.events.length : 0),
    0,
  );
  return { written: result.events.length, delivered };
}

test('coming online reaches every active account up to the limit, and nobody above it', async (t) => {
  const kit = await realm();
  const ids = activeIds(kit);
  const n = ids.length;
  t.true(n >= 5);
  // At the limit: each login is announced to all n accounts (its own too), n² events for everyone.
  const below = await loginAll(kit, ids, n);
  t.deepEqual(
    below,
    ids.map(() => ({ written: 1, delivered: n })),
  );
  // Everyone offline again, then a limit one smaller than the realm: rows are still kept, nothing is sent.
  await kit.advance(10 * 60_000);
  const above = await loginAll(kit, ids, n - 1);
  t.deepEqual(
    above,
    ids.map(() => ({ written: 1, delivered: 0 })),
  );
  const polled = (await kit.run({ type: 'realm.presences', slim: true })).reply as { presences: object };
  t.true(Object.keys(polled.presences).length > 0);
});
