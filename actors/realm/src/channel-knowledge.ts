import {
  channelAddress,
  isAdministrator,
  isGuest,
  knowsThroughGroups,
  mayReadChannel,
  ROLES,
  sameGroupSetting,
  systemGroupsOf,
  type ChannelEntry,
  type ChannelGrants,
  type GroupSetting,
  type Member,
} from '@chat/protocol';
import type { Tell } from '@chat/runtime';
import { isSystemGroup, memberOf } from './groups/model.js';
import type { Account, RealmState } from './state.js';

/**
 * Who may know of which channel without being subscribed, from the channel
 * directory's copy of each channel's privacy flags and group settings: the
 * realm answers it in one ask (`realm.channelGrants`), reaches who knows a
 * private channel through groups with its events (`realm.broadcast`), and
 * tells a channel whose knowers a change of groups or settings changed
 * (`channel.knowledge`), as the original's `bulk_add_members_to_user_groups`
 * and `do_change_stream_group_based_setting` send `stream` create and delete.
 */

/** A private channel's group settings grant `who` knowledge of it (false where they are not known). */
export const knowsPrivate = (entry: ChannelEntry, who: Member & { role: number }) =>
  entry.invite_only && entry.permissions !== undefined && knowsThroughGroups(who, entry.permissions);

/**
 * Whether an account knows a private channel through groups, as a test to run over many accounts: an
 * account's user groups are looked up only when a setting names a user-defined group (system groups
 * follow from the role; the defaults name nobody, or the creator directly).
 */
export function knowerOf(state: RealmState, entry: ChannelEntry): (a: Account) => boolean {
  const named = GRANTING.flatMap((name) => {
    const value = entry.permissions?.[name];
    return value === undefined ? [] : typeof value === 'number' ? [value] : value.direct_subgroups;
  });
  const needsGroups = named.some((id) => !isSystemGroup(id));
  return (a) => {
    const who = needsGroups ? memberOf(state, a) : { user_id: a.id, groups: systemGroupsOf(a.role) };
    return knowsPrivate(entry, { ...who, role: a.role });
  };
}

/** `realm.channelGrants`: the user's role, and the private channels his groups let him know of and read. */
export function channelGrants(state: RealmState, userId: number, channels = false): ChannelGrants {
  const account = state.accounts[userId];
  const grants: ChannelGrants = { role: account?.role ?? ROLES.guest, metadata: [], content: [] };
  if (channels) grants.channels = Object.values(state.channels);
  if (!account?.isActive || isGuest(account)) return grants;
  const who = { ...memberOf(state, account), role: account.role };
  for (const entry of Object.values(state.channels)) {
    if (!knowsPrivate(entry, who)) continue;
    grants.metadata.push(entry.channel_id);
    if (mayReadChannel(who, { ...entry.permissions!, ...entry }, false)) grants.content.push(entry.channel_id);
  }
  return grants;
}

/**
 * Whether an account knows of a channel it is not subscribed to: administrators every one, guests the
 * web-public ones, others the public ones and the private ones their groups grant (the original's
 * `get_streams_for_user`). Archived channels are left out by the caller.
 */
function knows(entry: ChannelEntry, who: Member & { role: number }): boolean {
  if (isAdministrator(who) || entry.is_web_public) return true;
  if (isGuest(who)) return false;
  return !entry.invite_only || knowsPrivate(entry, who);
}

const GRANTING = ['can_administer_channel_group', 'can_add_subscribers_group', 'can_subscribe_group'] as const;

/** Whether two states of a channel's entry have the same knowers (nothing that decides it changed). */
export const sameKnowers = (a: ChannelEntry, b: ChannelEntry) =>
  a.invite_only === b.invite_only &&
  a.is_web_public === b.is_web_public &&
  a.is_archived === b.is_archived &&
  GRANTING.every((name) => {
    const x = a.permissions?.[name];
    const y = b.permissions?.[name];
    return x === y || (x !== undefined && y !== undefined && sameGroupSetting(x, y));
  });

/**
 * Accounts whose knowledge may change: active, not administrators (who know every channel), and guests
 * only when asked (`guests`): they know the web-public channels alone, so only that flag concerns them.
 */
export const concerned = (state: RealmState, ids?: Iterable<number>, guests = false): Account[] =>
  (ids ? [...new Set(ids)].map((id) => state.accounts[id]!) : Object.values(state.accounts))
    .filter((a) => a !== undefined && a.isActive && (guests || !isGuest(a)) && !isAdministrator(a))
    .sort((a, b) => a.id - b.id);

/**
 * The tells to the channels whose knowers changed between two states of the
 * realm, for these accounts: each channel hears who gained and who lost it
 * (and leaves out its subscribers, which the realm does not know).
 */
export function knowledgeTells(
  before: RealmState,
  after: RealmState,
  accounts: Account[],
  channelIds: number[],
): Tell[] {
  const entries = channelIds
    .map((id) => [before.channels[id], after.channels[id]] as const)
    .filter(([old, now]) => old && now && !old.is_archived && !now.is_archived);
  if (entries.length === 0 || accounts.length === 0) return [];
  // Each state's own account: a change of role changes what one knows.
  const person = (state: RealmState, a: Account) => {
    const account = state.accounts[a.id] ?? a;
    return { ...memberOf(state, account), role: account.role };
  };
  const people = accounts.map((a) => ({ id: a.id, old: person(before, a), now: person(after, a) }));
  const tells: Tell[] = [];
  for (const [old, now] of entries) {
    const gained = people.filter((p) => !knows(old!, p.old) && knows(now!, p.now)).map((p) => p.id);
    const lost = people.filter((p) => knows(old!, p.old) && !knows(now!, p.now)).map((p) => p.id);
    if (gained.length === 0 && lost.length === 0) continue;
    const to = channelAddress(after.stringId, now!.channel_id);
    tells.push({ to, body: { type: 'channel.knowledge', gained, lost } });
  }
  return tells;
}

/** The private channels whose group settings name one of `groups` (directly or as a subgroup of an anonymous value). */
export function channelsNaming(state: RealmState, groups: Set<number>): number[] {
  const names = (v: GroupSetting) =>
    typeof v === 'number' ? groups.has(v) : v.direct_subgroups.some((g) => groups.has(g));
  return Object.values(state.channels)
    .filter((e) => e.invite_only && !e.is_archived && e.permissions)
    .filter((e) => GRANTING.some((name) => names(e.permissions![name])))
    .map((e) => e.channel_id);
}
