import test from 'ava';
import { MEMBER, realm } from './fixtures.js';

const version = async (kit: Awaited<ReturnType<typeof realm>>) =>
  ((await kit.run({ type: 'realm.usersVersioned' })).reply as { version: string }).version;

test('the user list is kept across sends, presence and statuses, and rebuilt after an account change', async (t) => {
  const kit = await realm();
  const first = await version(kit);
  await kit.run({ type: 'realm.nextMessageId', floor: 0 });
  await kit.run({ type: 'realm.reportPresence', user_id: MEMBER, status: 'active', event_user_limit: 100 });
  t.is(await version(kit), first);
  const unchanged = await kit.run({ type: 'realm.usersVersioned', unless: first });
  t.is((unchanged.reply as { users?: unknown }).users, undefined);

  const renamed = await kit.run({ type: 'realm.updateAccount', user_id: MEMBER, full_name: 'Renamed' });
  t.is(renamed.error, undefined);
  const after = await kit.run({ type: 'realm.usersVersioned', unless: first });
  const reply = after.reply as { version: string; users?: { user_id: number; full_name: string }[] };
  t.not(reply.version, first);
  t.is(reply.users?.find((u) => u.user_id === MEMBER)?.full_name, 'Renamed');
});
