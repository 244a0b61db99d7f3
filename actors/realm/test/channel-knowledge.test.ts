import test from 'ava';
import {
  defaultChannelPermissions,
  ROLES,
  SYSTEM_GROUPS,
  type ChannelPermissions,
  type GroupSetting,
} from '@chat/protocol';
import { ADMIN, GUEST, MEMBER, MODERATOR, OWNER, realm } from './fixtures.js';

/**
 * Who may know of a private channel through groups, as the realm decides it
 * from its directory's copy of each channel's settings: `realm.channelGrants`,
 * the `channel.knowledge` tells a change of groups or of a channel's settings
 * owes the channel, the private channel's broadcasts, and deactivation refused
 * while a channel uses the group.
 */
type Kit = Awaited<ReturnType<typeof realm>>;
const NOBODY = SYSTEM_GROUPS['role:nobody'];

async function group(kit: Kit, name: string, members: number[] = []): Promise<number> {
  const made = await kit.run({
    type: 'realm.createUserGroup',
    actor_id: OWNER,
    name,
    description: '',
    members,
    subgroups: [],
    settings: {},
  });
  if (made.error) throw made.error;
  return (made.reply as { group_id: number }).group_id;
}

const change = (kit: Kit, groupId: number, what: Partial<Record<'add' | 'delete' | 'add_subgroups', number[]>>) =>
  kit.run({
    type: 'realm.changeUserGroupMembers',
    actor_id: OWNER,
    group_id: groupId,
    add: what.add ?? [],
    delete: what.delete ?? [],
    add_subgroups: what.add_subgroups ?? [],
    delete_subgroups: [],
  });

const permissions = (settings: Partial<ChannelPermissions>): ChannelPermissions => ({
  ...defaultChannelPermissions(OWNER),
  can_administer_channel_group: NOBODY,
  ...settings,
});

async function channel(kit: Kit, name: string, settings: Partial<ChannelPermissions>, invite_only = true) {
  const entry = { name, invite_only, is_web_public: false, is_archived: false, is_default: false };
  const made = await kit.run({
    type: 'realm.registerChannel',
    entry: { ...entry, permissions: permissions(settings) },
  });
  if (made.error) throw made.error;
  return (made.reply as { channel_id: number }).channel_id;
}

/** The `channel.knowledge` tells of one result, by channel id. */
const knowledge = (result: Awaited<ReturnType<Kit['run']>>) =>
  result.tells
    .filter((t) => t.body.type === 'channel.knowledge')
    .map((t) => ({ channel: Number(t.to.key.split(':')[1]), ...(t.body as { gained: number[]; lost: number[] }) }))
    .map(({ channel, gained, lost }) => ({ channel, gained, lost }));

const grants = async (kit: Kit, userId: number) => {
  const { metadata, content } = (await kit.run({ type: 'realm.channelGrants', user_id: userId })).reply as {
    metadata: number[];
    content: number[];
  };
  return { metadata, content };
};

test('joining and leaving a group named in a private channel tells the channel who gained and lost it', async (t) => {
  const kit = await realm();
  const team = await group(kit, 'team');
  const id = await channel(kit, 'secret', { can_subscribe_group: team });
  t.deepEqual(await grants(kit, MEMBER), { metadata: [], content: [] });

  t.deepEqual(knowledge(await change(kit, team, { add: [MEMBER, MODERATOR] })), [
    { channel: id, gained: [MODERATOR, MEMBER], lost: [] },
  ]);
  t.deepEqual(await grants(kit, MEMBER), { metadata: [id], content: [id] });
  t.deepEqual(knowledge(await change(kit, team, { delete: [MEMBER] })), [{ channel: id, gained: [], lost: [MEMBER] }]);
  t.deepEqual(await grants(kit, MEMBER), { metadata: [], content: [] });
  t.deepEqual(await grants(kit, MODERATOR), { metadata: [id], content: [id] });
});

test('administrators and guests never gain a private channel through groups', async (t) => {
  const kit = await realm();
  const team = await group(kit, 'team');
  await channel(kit, 'secret', { can_add_subscribers_group: team });
  t.deepEqual(knowledge(await change(kit, team, { add: [ADMIN, GUEST] })), []);
  t.deepEqual(await grants(kit, GUEST), { metadata: [], content: [] });
});

test('a subgroup added to the named group brings its members; can_administer_channel_group grants no content', async (t) => {
  const kit = await realm();
  const outer = await group(kit, 'outer');
  const inner = await group(kit, 'inner', [MEMBER]);
  const id = await channel(kit, 'admins only', { can_administer_channel_group: outer });
  const other = await channel(kit, 'unrelated', { can_subscribe_group: NOBODY });
  t.deepEqual(knowledge(await change(kit, outer, { add_subgroups: [inner] })), [
    { channel: id, gained: [MEMBER], lost: [] },
  ]);
  t.deepEqual(await grants(kit, MEMBER), { metadata: [id], content: [] });
  t.false((await grants(kit, MEMBER)).metadata.includes(other));
});

test("a channel's new settings or privacy tell it who gained and lost it; other changes tell nothing", async (t) => {
  const kit = await realm();
  const id = await channel(kit, 'secret', {});
  const changed = (entry: { invite_only?: boolean; permissions?: Partial<ChannelPermissions> }) =>
    kit.run({
      type: 'realm.channelChanged',
      entry: {
        channel_id: id,
        name: 'secret',
        invite_only: entry.invite_only ?? true,
        is_web_public: false,
        is_archived: false,
        folder_id: null,
        permissions: permissions(entry.permissions ?? {}),
      },
    });
  const direct: GroupSetting = { direct_members: [MEMBER], direct_subgroups: [] };
  t.deepEqual(knowledge(await changed({ permissions: { can_subscribe_group: direct } })), [
    { channel: id, gained: [MEMBER], lost: [] },
  ]);
  t.deepEqual(knowledge(await changed({ permissions: { can_subscribe_group: direct } })), []);
  // Made public, every member, moderator and bot knows it; private again, only the one its settings name.
  const bot = kit.state.notificationBotId!;
  t.deepEqual(knowledge(await changed({ invite_only: false, permissions: { can_subscribe_group: direct } })), [
    { channel: id, gained: [MODERATOR, bot], lost: [] },
  ]);
  t.deepEqual(knowledge(await changed({ permissions: { can_subscribe_group: direct } })), [
    { channel: id, gained: [], lost: [MODERATOR, bot] },
  ]);
});

test("a private channel's broadcast reaches administrators and who knows it through groups, not other members", async (t) => {
  const kit = await realm();
  const team = await group(kit, 'team', [MEMBER]);
  const id = await channel(kit, 'secret', { can_subscribe_group: team });
  const event = { type: 'stream', op: 'update', stream_id: id, property: 'description', value: 'x' };
  const sent = await kit.run({
    type: 'realm.broadcast',
    events: [event],
    to: 'administrators',
    except: [],
    channel_id: id,
  });
  const keys = sent.fanouts.flatMap((f) => f.keys).sort();
  t.deepEqual(keys, [`zulip:${OWNER}`, `zulip:${ADMIN}`, `zulip:${MEMBER}`].sort());
  // A system group is known from the role alone.
  const moderated = await channel(kit, 'moderated', { can_subscribe_group: SYSTEM_GROUPS['role:moderators'] });
  const told = await kit.run({
    type: 'realm.broadcast',
    events: [event],
    to: 'administrators',
    except: [OWNER],
    channel_id: moderated,
  });
  t.deepEqual(told.fanouts.flatMap((f) => f.keys).sort(), [`zulip:${ADMIN}`, `zulip:${MODERATOR}`].sort());
});

test('a group a channel uses cannot be deactivated: the channel is among the objections', async (t) => {
  const kit = await realm();
  const team = await group(kit, 'team');
  const id = await channel(kit, 'secret', { can_subscribe_group: team, can_send_message_group: team });
  const refused = await kit.run({ type: 'realm.deactivateUserGroup', actor_id: OWNER, group_id: team });
  t.is(refused.error?.code, 'CANNOT_DEACTIVATE_GROUP_IN_USE');
  t.deepEqual(refused.error?.extra?.objections, [
    { type: 'channel', channel_id: id, settings: ['can_send_message_group', 'can_subscribe_group'] },
  ]);
});

test('a new role tells the channels it opens or closes: administrators know every one, guests the web-public ones', async (t) => {
  const kit = await realm();
  const secret = await channel(kit, 'secret', {});
  const moderated = await channel(kit, 'moderated', { can_subscribe_group: SYSTEM_GROUPS['role:moderators'] });
  const open = await channel(kit, 'open', {}, false);
  const role = (role: number) => kit.run({ type: 'realm.updateUser', actor_id: OWNER, user_id: MEMBER, role });
  const byChannel = (result: Awaited<ReturnType<Kit['run']>>) =>
    knowledge(result).sort((a, b) => a.channel - b.channel);
  t.deepEqual(byChannel(await role(ROLES.moderator)), [{ channel: moderated, gained: [MEMBER], lost: [] }]);
  t.deepEqual(byChannel(await role(ROLES.administrator)), [{ channel: secret, gained: [MEMBER], lost: [] }]);
  t.deepEqual(byChannel(await role(ROLES.guest)), [
    { channel: secret, gained: [], lost: [MEMBER] },
    { channel: moderated, gained: [], lost: [MEMBER] },
    { channel: open, gained: [], lost: [MEMBER] },
  ]);
  t.is(((await kit.run({ type: 'realm.channelGrants', user_id: MEMBER })).reply as { role: number }).role, ROLES.guest);
});

test('a channel made web-public is known to guests, and no longer once it stops; members knew it already', async (t) => {
  const kit = await realm();
  const id = await channel(kit, 'open', {}, false);
  const changed = (entry: { invite_only: boolean; is_web_public: boolean }) =>
    kit.run({
      type: 'realm.channelChanged',
      entry: {
        channel_id: id,
        name: 'open',
        ...entry,
        is_archived: false,
        folder_id: null,
        permissions: permissions({}),
      },
    });
  t.deepEqual(knowledge(await changed({ invite_only: false, is_web_public: true })), [
    { channel: id, gained: [GUEST], lost: [] },
  ]);
  t.deepEqual(knowledge(await changed({ invite_only: false, is_web_public: true })), []);
  t.deepEqual(knowledge(await changed({ invite_only: false, is_web_public: false })), [
    { channel: id, gained: [], lost: [GUEST] },
  ]);
  // Private, then web-public at once: members and the guest gain it; private again, all lose it.
  const bot = kit.state.notificationBotId!;
  await changed({ invite_only: true, is_web_public: false });
  t.deepEqual(knowledge(await changed({ invite_only: false, is_web_public: true })), [
    { channel: id, gained: [MODERATOR, MEMBER, GUEST, bot], lost: [] },
  ]);
  t.deepEqual(knowledge(await changed({ invite_only: true, is_web_public: false })), [
    { channel: id, gained: [], lost: [MODERATOR, MEMBER, GUEST, bot] },
  ]);
});

test('realm.channelGrants with channels answers the directory too, as it is at the same position', async (t) => {
  const kit = await realm();
  const open = await channel(kit, 'open', {}, false);
  const asked = (channels?: boolean) =>
    kit.run({ type: 'realm.channelGrants', user_id: GUEST, ...(channels ? { channels } : {}) });
  const reply = (await asked(true)).reply as { channels: Array<{ channel_id: number; is_web_public: boolean }> };
  t.like(
    reply.channels.find((c) => c.channel_id === open),
    { is_web_public: false },
  );
  t.is(((await asked()).reply as { channels?: unknown }).channels, undefined);
});
