import test from 'ava';
import { SESSION_AGE_SECONDS, type Principal } from '@chat/protocol';
import { MEMBER, OWNER, realm } from './fixtures.js';

const principalOf = async (kit: Awaited<ReturnType<typeof realm>>, hash: string) =>
  (await kit.run({ type: 'realm.sessionPrincipal', key_hash: hash })).reply as Principal | null;

test('a session opens its account for two weeks, then no more', async (t) => {
  const kit = await realm();
  await kit.run({ type: 'realm.startSession', user_id: MEMBER, key_hash: 'a'.repeat(64) });
  t.is((await principalOf(kit, 'a'.repeat(64)))?.user_id, MEMBER);
  t.is(await principalOf(kit, 'b'.repeat(64)), null);
  await kit.advance(SESSION_AGE_SECONDS * 1000 - 1000);
  t.is((await principalOf(kit, 'a'.repeat(64)))?.user_id, MEMBER);
  await kit.advance(1000);
  t.is(await principalOf(kit, 'a'.repeat(64)), null);
  // The next session started forgets the expired one.
  const started = await kit.run({ type: 'realm.startSession', user_id: OWNER, key_hash: 'c'.repeat(64) });
  t.false('a'.repeat(64) in ((started.state as { sessions: object }).sessions ?? {}));
});

test('logout, a new password and a deactivation end sessions', async (t) => {
  const kit = await realm();
  const [one, two, other] = ['1', '2', '3'].map((c) => c.repeat(64)) as [string, string, string];
  await kit.run({ type: 'realm.startSession', user_id: MEMBER, key_hash: one });
  await kit.run({ type: 'realm.startSession', user_id: MEMBER, key_hash: two });
  await kit.run({ type: 'realm.startSession', user_id: OWNER, key_hash: other });
  await kit.run({ type: 'realm.endSession', key_hash: one });
  t.is(await principalOf(kit, one), null);
  t.is((await principalOf(kit, two))?.user_id, MEMBER);
  await kit.run({ type: 'realm.updateAccount', user_id: MEMBER, password_hash: 'scrypt$new' });
  t.is(await principalOf(kit, two), null);
  t.is((await principalOf(kit, other))?.user_id, OWNER);
  await kit.run({ type: 'realm.startSession', user_id: MEMBER, key_hash: one });
  const deactivated = await kit.run({
    type: 'realm.setActive',
    actor: await ownerPrincipal(kit),
    user_id: MEMBER,
    active: false,
  });
  t.falsy(deactivated.error);
  t.is(await principalOf(kit, one), null);
  const refused = await kit.run({ type: 'realm.startSession', user_id: MEMBER, key_hash: two });
  t.is(refused.error?.code, 'USER_DEACTIVATED');
});

async function ownerPrincipal(kit: Awaited<ReturnType<typeof realm>>): Promise<Principal> {
  return (await principalOf(kit, '3'.repeat(64)))!;
}
