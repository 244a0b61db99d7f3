import test from 'ava';
import { ADMIN, MEMBER, MODERATOR, realm } from './fixtures.js';

const DAY = 24 * 3600_000;

interface Account {
  id: number;
  botType: number | null;
}

/**
 * Who a big channel's `partial_subscribers` names besides its bots: those a
 * client said were active within the days asked; being connected (idle) or
 * invisible does not count, and activity older than that falls out.
 */
test('recently active: reported active within the days asked, not idle, not invisible', async (t) => {
  const kit = await realm();
  const report = async (user_id: number, status: 'active' | 'idle') => {
    const result = await kit.run({ type: 'realm.reportPresence', user_id, status, event_user_limit: 100 });
    if (result.error) throw result.error;
  };
  // Bots always count: the realm's own notification bot here.
  const accounts = Object.values((kit.state as { accounts: Record<number, Account> }).accounts);
  const bots = accounts.filter((a) => a.botType !== null).map((a) => a.id);
  t.is(bots.length, 1);
  const recent = async () => {
    const ids = (await kit.run({ type: 'realm.recentlyActive', days: 14 })).reply as number[];
    return ids.filter((id) => !bots.includes(id)).sort();
  };
  t.deepEqual(await recent(), []);
  t.deepEqual((await kit.run({ type: 'realm.recentlyActive', days: 14 })).reply, bots);
  await report(MEMBER, 'active');
  await report(MODERATOR, 'idle');
  await report(ADMIN, 'active');
  t.deepEqual(await recent(), [ADMIN, MEMBER].sort());
  // Turning presence off hides the past too.
  const off = await kit.run({ type: 'realm.presenceEnabled', user_id: ADMIN, enabled: false });
  if (off.error) throw off.error;
  t.deepEqual(await recent(), [MEMBER]);
  await kit.advance(14 * DAY);
  t.deepEqual(await recent(), [MEMBER]);
  await kit.advance(1000);
  t.deepEqual(await recent(), []);
});
