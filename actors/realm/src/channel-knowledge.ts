import {
  channelAddress,
  isAdministrator,
  isGuest,
  knowsThroughGroups,
  mayReadChannel,
  sameGroupSetting,
  type ChannelEntry,
  type ChannelGrants,
  type GroupSetting,
  type Member,
} from '@chat/protocol';
import type { Tell } from '@chat/runtime';
import { memberOf } from './groups/model.js';
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

/** `realm.channelGrants`: the private channels a user's groups let him know of and read. */
export function channelGrants(state: RealmState, userId: number): ChannelGrants {
  const account = state.accounts[userId];
  const grants: ChannelGrants = { metadata: [], content: [] };
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
 * Whether a non-administrator, non-guest account knows of a channel it is not subscribed to:
 * a public one always, a private one through its groups. Archived channels are left out.
 */
function knows(entry: ChannelEntry, who: Member & { role: number }): boolean {
  return !entry.invite_only || knowsPrivate(entry, who);
}

const GRANTING = ['can_administer_channel_group', 'can_add_subscribers_group', 'can_subscribe_group'] as const;

/** Whether two states of a channel's entry have the same knowers (nothing that decides it changed). */
export const sameKnowers = (a: ChannelEntry, b: ChannelEntry) =>
  a.invite_only === b.invite_only &&
  a.is_archived === b.is_archived &&
  GRANTING.every((name) => {
    const x = a.permissions?.[name];
    const y = b.permissions?.[name];
    return x === y || (x !== undefined && y !== undefined && sameGroupSetting(x, y));
  });

/** Accounts whose knowledge may change: active, neither guests nor administrators (who know every channel). */
export const concerned = (state: RealmState, ids?: Iterable<number>): Account[] =>
  (ids ? [...new Set(ids)].map((id) => state.accounts[id]!) : Object.values(state.accounts))
    .filter((a) => a !== undefined && a.isActive && !isGuest(a) && !isAdministrator(a))
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
  const people = accounts.map((a) => ({
    id: a.id,
    old: { ...memberOf(before, a), role: a.role },
    now: { ...memberOf(after, a), role: a.role },
  }));
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
