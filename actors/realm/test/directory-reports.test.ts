import test from 'ava';
import { channelAddress, defaultChannelPermissions, type ChannelEntry } from '@chat/protocol';
import { outgoingKey } from '@chat/runtime';
import { OWNER, realm } from './fixtures.js';

/**
 * The directory's copy of a channel's flags and settings, as the channel
 * reports them (`realm.channelChanged`): each report is an owed message sent,
 * and sent again, on its own, so two from one channel may arrive in either
 * order; the channel's journal position (named by the report's key) decides.
 * Entries kept before the directory had channels' settings are filled once,
 * from the channels themselves.
 */
const entry = (id: number, invite_only: boolean): Omit<ChannelEntry, 'is_default'> => ({
  channel_id: id,
  name: 'secret',
  invite_only,
  is_web_public: false,
  is_archived: false,
  folder_id: null,
  permissions: defaultChannelPermissions(OWNER),
});

async function registered(kit: Awaited<ReturnType<typeof realm>>): Promise<number> {
  const made = await kit.run({ type: 'realm.registerChannel', entry: { ...entry(0, false), is_default: false } });
  if (made.error) throw made.error;
  return (made.reply as ChannelEntry).channel_id;
}

test("reports from one channel apply in the channel's own order: an older one arriving late changes nothing", async (t) => {
  const kit = await realm();
  const id = await registered(kit);
  const from = (position: number) => ({ idempotencyKey: outgoingKey(channelAddress('zulip', id), position, 0) });
  // Made private at 20 after made public at 10, whose report was sent first but arrives last.
  const newer = await kit.run({ type: 'realm.channelChanged', entry: entry(id, true) }, from(20));
  t.is(newer.events.length, 1);
  const older = await kit.run({ type: 'realm.channelChanged', entry: entry(id, false) }, from(10));
  t.deepEqual(older.events, []);
  t.deepEqual(older.tells, []);
  t.like(kit.state.channels[id], { invite_only: true, position: 20 });
  // A newer one still applies.
  await kit.run({ type: 'realm.channelChanged', entry: entry(id, false) }, from(30));
  t.like(kit.state.channels[id], { invite_only: false, position: 30 });
});

test('entries kept before the directory had settings are filled once: the realm asks their channels when it comes to life', async (t) => {
  const kit = await realm();
  // The shape such an entry was registered with: no flags, no settings.
  kit.given([{ type: 'channelRegistered', channelId: 40, name: 'old one' }]);
  kit.activate();
  const asked = await kit.fire('directory');
  t.deepEqual(asked.events, []);
  t.deepEqual(asked.tells, [{ to: channelAddress('zulip', 40), body: { type: 'channel.report' } }]);
  // The channel's answer fills it, telling nobody (who knew it still does: the channels decided for such entries).
  const filled = await kit.run({ type: 'realm.channelChanged', entry: entry(40, true), fill: true });
  t.is(filled.events.length, 1);
  t.deepEqual(filled.tells, []);
  t.like(kit.state.channels[40], { invite_only: true, name: 'old one' });
  t.truthy(kit.state.channels[40]!.permissions);
  // Filled once: a late second answer changes nothing, and coming to life again asks nobody.
  t.deepEqual((await kit.run({ type: 'realm.channelChanged', entry: entry(40, false), fill: true })).events, []);
  kit.activate();
  t.false(kit.timers.has('directory'));
});
