import test from 'ava';
import { ROLES } from '@chat/protocol';
import { ADMIN, MEMBER, MODERATOR, OWNER, principal, realm } from './fixtures.js';

type Kit = Awaited<ReturnType<typeof realm>>;
const HOUR = 3600_000;
const DAY = 24 * HOUR;

let made = 0;
const link = (kit: Kit, inviter: number, minutes: number | null = 60, role: number = ROLES.member) => {
  made += 1;
  return kit.run({
    type: 'realm.createInviteLink',
    inviter: principal(inviter),
    key: `key${made}`,
    key_hash: `hash-${kit.now}-${made}`,
    options: {
      role: role as typeof ROLES.member,
      stream_ids: [],
      group_ids: [],
      include_realm_default_subscriptions: false,
      welcome_message_custom_text: null,
      expires_in_minutes: minutes,
    },
    channels: [],
  });
};
const accept = (kit: Kit, hash: string, email: string) =>
  kit.run({ type: 'realm.acceptInvite', key_hash: hash, full_name: 'New', password_hash: 'x', email });

test('a link makes accounts until it expires', async (t) => {
  const kit = await realm();
  const made = await link(kit, ADMIN, 60);
  t.is(made.error, undefined);
  const hash = made.events.flatMap((e) => (e.type === 'inviteLinkCreated' ? [e.link.keyHash] : []))[0]!;
  for (const email of ['a@zulip.test', 'b@zulip.test']) t.is((await accept(kit, hash, email)).error, undefined);
  t.is((await accept(kit, hash, 'a@zulip.test')).error?.message, 'Already has an account.');
  await kit.advance(HOUR);
  t.is(
    (await accept(kit, hash, 'c@zulip.test')).error?.message,
    'Whoops. The confirmation link has expired or been deactivated.',
  );
});

test('links are for create_multiuse_invite_group (administrators), at most at their own role', async (t) => {
  const kit = await realm();
  for (const who of [MODERATOR, MEMBER]) t.is((await link(kit, who)).error?.message, 'Insufficient permission');
  t.is((await link(kit, ADMIN, 60, ROLES.owner)).error?.message, 'Insufficient permission');
  t.is((await link(kit, OWNER, 60, ROLES.owner)).error, undefined);
  const id = (await link(kit, OWNER, null, ROLES.owner)).reply as { id: number };
  const byAdmin = await kit.run({ type: 'realm.revokeInviteLink', actor: principal(ADMIN), invite_id: id.id });
  t.is(byAdmin.error?.message, 'Must be an organization owner');
});

test('five exports a week; each finishes once; only administrators hear of them', async (t) => {
  const kit = await realm();
  const ask = (who = ADMIN) => kit.run({ type: 'realm.requestExport', actor: principal(who), export_type: 1 });
  t.is((await ask(MEMBER)).error?.message, 'Must be an organization administrator');
  const first = await ask();
  const heard = first.fanouts.flatMap((f) => ('keys' in f ? (f.keys as string[]) : []));
  t.deepEqual(heard.sort(), ['zulip:1', 'zulip:2']);
  const id = (first.reply as { id: number }).id;
  const done = await kit.run({ type: 'realm.exportDone', id, url: 'https://x/e.tar.gz' });
  t.is(done.events.length, 1);
  const again = await kit.run({ type: 'realm.exportDone', id, url: null });
  t.deepEqual(again.events, []);
  const list = (await kit.run({ type: 'realm.exports', viewer: principal(OWNER) })).reply as Array<{
    id: number;
    pending: boolean;
    failed_timestamp: number | null;
  }>;
  t.like(
    list.find((e) => e.id === id),
    { pending: false, failed_timestamp: null },
  );
  for (let i = 0; i < 4; i++) {
    await kit.advance(DAY);
    t.is((await ask()).error, undefined);
  }
  t.is((await ask()).error?.message, 'Exceeded rate limit.');
  await kit.advance(3 * DAY + 1);
  t.is((await ask()).error, undefined, 'the first is more than a week old');
});

test('an export pending for six hours is taken as lost and marked failed', async (t) => {
  const kit = await realm();
  const asked = await kit.run({ type: 'realm.requestExport', actor: principal(ADMIN), export_type: 1 });
  const id = (asked.reply as { id: number }).id;
  type Listed = { id: number; pending: boolean; failed_timestamp: number | null };
  const listed = async () => {
    const result = await kit.run({ type: 'realm.exports', viewer: principal(ADMIN) });
    return { result, record: (result.reply as Listed[])[0]! };
  };
  await kit.advance(6 * HOUR - 1000);
  t.like((await listed()).record, { id, pending: true, failed_timestamp: null });
  await kit.advance(2000);
  const { result, record } = await listed();
  t.like(record, { id, pending: false });
  t.not(record.failed_timestamp, null);
  t.is(result.events.length, 1);
  t.is(result.fanouts.length, 1);
  // Written too late: the failure stands.
  await kit.run({ type: 'realm.exportDone', id, url: 'https://x/late.tar.gz' });
  const after = await listed();
  t.like(after.record, { pending: false, failed_timestamp: record.failed_timestamp });
  t.deepEqual(after.result.events, []);
});

test('an organization too large for an automatic export is refused after the rate limit, recording nothing', async (t) => {
  const kit = await realm();
  const ask = (manual?: string) =>
    kit.run({
      type: 'realm.requestExport',
      actor: principal(ADMIN),
      export_type: 1,
      ...(manual !== undefined && { manual_export_from: manual }),
    });
  const refused = await ask('ops@example.org');
  t.is(refused.error?.message, 'Please request a manual export from ops@example.org.');
  t.deepEqual(refused.events, []);
  t.deepEqual((await kit.run({ type: 'realm.exports', viewer: principal(ADMIN) })).reply, []);
  for (let i = 0; i < 5; i++) t.is((await ask()).error, undefined);
  t.is((await ask('ops@example.org')).error?.message, 'Exceeded rate limit.');
});
