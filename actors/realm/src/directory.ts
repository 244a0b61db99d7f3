import { originOf, type Tell } from '@chat/runtime';
import {
  ChatError,
  channelAddress,
  formatAddress,
  placeholderUserId,
  type ChannelEntry,
  type RealmCommand,
  type Resolved,
  type UserRef,
} from '@chat/protocol';
import { groupsByName } from './groups/model.js';
import { channelGrants, concerned, knowledgeTells, sameKnowers } from './channel-knowledge.js';
import { apiEmailOf, hiddenGravatar, toPrincipal } from './profile.js';
import type { Account, RealmState } from './state.js';
import type { RealmHandlers } from './state.js';
import type { RealmProtocol } from '@chat/protocol';

type DirectoryCommand = Extract<
  RealmCommand,
  {
    type:
      | 'realm.settings'
      | 'realm.resolve'
      | 'realm.registerChannel'
      | 'realm.findChannel'
      | 'realm.channels'
      | 'realm.channelGrants'
      | 'realm.renameChannel'
      | 'realm.channelChanged'
      | 'realm.notificationBot';
  }
>;

/** The channel's journal position a report comes from, when its key names that channel's change. */
function reportedAt(key: string | undefined, realm: string, channelId: number): number | undefined {
  const origin = originOf(key);
  return origin?.actor === formatAddress(channelAddress(realm, channelId)) ? origin.position : undefined;
}

const noChannel = (name: string) =>
  new ChatError('STREAM_DOES_NOT_EXIST', `Channel '${name}' does not exist`, { stream: name });

export const toUserRef = (a: Account): UserRef => ({
  user_id: a.id,
  email: apiEmailOf(a),
  ...hiddenGravatar(a),
  full_name: a.fullName,
  role: a.role,
  is_bot: a.botType !== null,
  is_active: a.isActive,
  bot_owner_id: a.botOwnerId,
});

/**
 * The account whose API address this is, as the original looks users up by
 * it: the real address of those who show it, the placeholder of those who
 * hide it (never their real one, which would tell whose it is).
 */
export function byApiEmail(state: RealmState, email: string): Account | undefined {
  const lower = email.trim().toLowerCase();
  const id = state.byEmail[lower];
  const account = id !== undefined ? state.accounts[id] : undefined;
  if (account && account.apiEmail === undefined) return account;
  const named = placeholderUserId(lower);
  const hidden = named !== undefined ? state.accounts[named] : undefined;
  return hidden?.apiEmail?.toLowerCase() === lower ? hidden : undefined;
}

/** Finds users, groups and channels by name or id; what is not found is simply absent. */
function resolve(state: RealmState, query: Extract<RealmCommand, { type: 'realm.resolve' }>['query']): Resolved {
  const users = new Map<number, Account>();
  for (const email of query.emails ?? []) {
    const account = byApiEmail(state, email);
    if (account) users.set(account.id, account);
  }
  for (const id of query.user_ids ?? []) if (state.accounts[id]) users.set(id, state.accounts[id]);
  const names = new Set((query.user_names ?? []).map((n) => n.toLowerCase()));
  if (names.size > 0) {
    for (const a of Object.values(state.accounts)) if (names.has(a.fullName.toLowerCase())) users.set(a.id, a);
  }
  const channels: ChannelEntry[] = [];
  for (const name of query.channel_names ?? []) {
    const id = state.channelsByName[name.trim().toLowerCase()];
    if (id !== undefined) channels.push(state.channels[id]!);
  }
  const groups = groupsByName(state, query.group_names ?? [], query.mentioner_id);
  return { users: [...users.values()].map(toUserRef), groups, channels };
}

export const directoryHandlers: RealmHandlers<Pick<RealmProtocol, DirectoryCommand['type']>> = {
  'realm.settings': ({ state }) => {
    return { reply: state.settings };
  },
  'realm.resolve': ({ state }, command) => {
    return { reply: resolve(state, command.query) };
  },
  'realm.notificationBot': ({ state }) => {
    return { reply: toPrincipal(state, state.accounts[state.notificationBotId!]!) };
  },
  'realm.registerChannel': ({ state }, command) => {
    const name = command.entry.name.trim();
    if (state.channelsByName[name.toLowerCase()] !== undefined) {
      throw new ChatError('CHANNEL_ALREADY_EXISTS', `Channel '${name}' already exists`);
    }
    const channelId = state.nextChannelId;
    const entry = { ...command.entry, name, channel_id: channelId };
    return { events: [{ type: 'channelRegistered', channelId, name, entry }], reply: entry };
  },
  'realm.findChannel': ({ state }, command) => {
    const id = state.channelsByName[command.name.trim().toLowerCase()];
    if (id === undefined) throw noChannel(command.name);
    return { reply: state.channels[id] };
  },
  'realm.channels': ({ state }) => {
    return { reply: Object.values(state.channels) };
  },
  'realm.renameChannel': ({ state }, command) => {
    const entry = state.channels[command.channel_id];
    if (!entry) throw new ChatError('BAD_REQUEST', 'Invalid channel ID');
    if (entry.name === command.name) throw new ChatError('BAD_REQUEST', 'Channel already has that name.');
    const taken = state.channelsByName[command.name.toLowerCase()];
    if (taken !== undefined && taken !== command.channel_id) {
      throw new ChatError('BAD_REQUEST', 'Channel name already in use.');
    }
    return { events: [{ type: 'channelRenamed', channelId: entry.channel_id, name: command.name }], reply: null };
  },
  'realm.channelGrants': ({ state }, command) => {
    return { reply: channelGrants(state, command.user_id, command.channels) };
  },
  'realm.channelChanged': ({ state, idempotencyKey }, command) => {
    const id = command.entry.channel_id;
    const before = state.channels[id];
    if (!before) return {};
    // The channel's answer to `channel.report` fills an entry kept without settings, once, and tells nobody:
    // for such entries the channels themselves decided who knew them.
    if (command.fill) {
      if (before.permissions !== undefined) return {};
      return { events: [{ type: 'channelChanged', entry: { ...command.entry, name: before.name } }] };
    }
    // Each report is an owed message, sent (and sent again) on its own, so two from one channel may arrive in
    // either order: the channel's journal position, which the report's key names, decides.
    const position = reportedAt(idempotencyKey, state.stringId, id);
    if (position !== undefined && before.position !== undefined && position <= before.position) return {};
    const entry = position === undefined ? command.entry : { ...command.entry, position };
    // Its privacy or group settings may let others know of it, or no longer; made web-public or no longer,
    // the guests not subscribed too (who see the web-public channels).
    const now = { ...before, ...entry };
    const after: RealmState = { ...state, channels: { ...state.channels, [id]: now } };
    const guests = before.is_web_public !== now.is_web_public;
    const tells = sameKnowers(before, now)
      ? []
      : knowledgeTells(state, after, concerned(state, undefined, guests), [id]);
    return { events: [{ type: 'channelChanged', entry }], tells };
  },
};

/**
 * Entries kept before the directory had channels' settings are asked of their channels once the realm
 * comes to life (`onActivate` arms the `directory` timer): each channel answers with its flags and
 * settings (`channel.report`, then `realm.channelChanged` with `fill`). At most once per activation; an
 * entry filled is never asked again, one whose answer was lost is asked at the next activation.
 */
export const DIRECTORY_TIMER = 'directory';

export function askLegacyEntries(state: RealmState): Tell[] {
  return Object.values(state.channels ?? {})
    .filter((entry) => entry.permissions === undefined)
    .map((entry) => ({
      to: channelAddress(state.stringId, entry.channel_id),
      body: { type: 'channel.report' as const },
    }));
}
