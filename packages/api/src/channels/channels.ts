import { Type } from '@sinclair/typebox';
import { defineRoute, type Route } from '@chat/edge';
import {
  ChatError,
  channelAddress,
  inGroupSetting,
  isGuest,
  isUnableToAccessChannel,
  mayAddSubscribers,
  mayManageDefaultChannels,
  mayReadChannel,
  maySeeAllChannels,
  maySeePublicChannels,
  type ChannelEntry,
  type ChannelGrants,
  type ChannelInfo,
  type ChannelPermission,
  type QueueEvent,
  type GroupSetting,
  type Principal,
  type RealmSettings,
  type TopicsPolicy,
  type UserRef,
  unableToAccessChannel,
} from '@chat/protocol';
import { channelAdminRoutes } from './admin.js';
import { announceChannels, noteNewChannels, tellNewSubscribers, type NewChannel } from './announce.js';
import { checkColor, subscriptionSettingsRoutes } from './subscription-settings.js';
import { channelRetention, createChannel, type NewChannelSpec } from './create.js';
import { channelJson, subscriberLists, subscriptionJson } from './json.js';
import { creationPermissionParams, newChannelPermissions } from './permissions.js';
import { accessAddsFirst, restrictsGuests, tellAccessChanges } from '../users/access-events.js';
import { CallerContext } from '../context.js';
import { checkChannelCount, checkDescription, LIMITS } from '../limits.js';
import type { ApiOptions } from '../options.js';

const Principals = Type.Union([Type.Array(Type.Integer()), Type.Array(Type.String())], {
  description: 'User ids (preferred) or e-mail addresses; the caller when omitted.',
});

function checkChannelName(name: string): string {
  const trimmed = name.trim();
  if (trimmed === '') throw new ChatError('BAD_REQUEST', "Channel name can't be empty.");
  if ([...trimmed].length > LIMITS.max_stream_name_length) {
    throw new ChatError('BAD_REQUEST', `Channel name too long (limit: ${LIMITS.max_stream_name_length} characters).`);
  }
  if (/[\0-\x1f]/.test(trimmed)) throw new ChatError('BAD_REQUEST', 'Invalid character in channel name');
  return trimmed;
}

/** The users named by `principals`, or the caller; unknown and deactivated ones are refused. */
async function principalsOf(caller: CallerContext, principals: number[] | string[] | undefined): Promise<UserRef[]> {
  if (principals === undefined) {
    const me = (await caller.users([caller.principal.user_id])).get(caller.principal.user_id)!;
    return [me];
  }
  const ids = principals.filter((p): p is number => typeof p === 'number');
  const emails = principals.filter((p): p is string => typeof p === 'string');
  const { users } = await caller.resolve({ user_ids: ids, emails });
  if (users.length !== principals.length || users.some((u) => !u.is_active)) {
    throw new ChatError('BAD_REQUEST', 'No such user');
  }
  return users;
}

interface ChannelOptions {
  name: string;
  description?: string | undefined;
  invite_only?: boolean | undefined;
  is_web_public?: boolean | undefined;
  is_default_stream?: boolean | undefined;
  history_public_to_subscribers?: boolean | undefined;
  topics_policy?: string | undefined;
  message_retention_days?: number | string | undefined;
  folder_id?: number | undefined;
}

/** A new channel as the caller asked for it, once the realm's creation permissions allow it. */
function newChannelSpec(principal: Principal, settings: RealmSettings, options: ChannelOptions): NewChannelSpec {
  const group = options.invite_only
    ? settings.can_create_private_channel_group
    : settings.can_create_public_channel_group;
  const insufficient = () => new ChatError('BAD_REQUEST', 'Insufficient permission');
  // The original's order: the channel type, a default channel, then web-public.
  if (!inGroupSetting(group, principal)) throw insufficient();
  if (options.is_default_stream && !mayManageDefaultChannels(principal)) throw insufficient();
  if (options.is_default_stream && options.invite_only)
    throw new ChatError('BAD_REQUEST', 'A default channel cannot be private.');
  if (options.is_web_public && !inGroupSetting(settings.can_create_web_public_channel_group, principal))
    throw insufficient();
  return {
    name: checkChannelName(options.name),
    description: checkDescription(options.description ?? ''),
    invite_only: options.invite_only ?? false,
    is_web_public: options.is_web_public ?? false,
    is_default: options.is_default_stream ?? false,
    ...(options.history_public_to_subscribers !== undefined
      ? { history_public_to_subscribers: options.history_public_to_subscribers }
      : {}),
    ...(options.topics_policy ? { topics_policy: options.topics_policy as TopicsPolicy } : {}),
    ...(options.message_retention_days !== undefined
      ? { message_retention_days: channelRetention(principal, options.message_retention_days) }
      : {}),
    ...(options.folder_id !== undefined ? { folder_id: options.folder_id } : {}),
  };
}

/** The settings a new channel may be given by either way of creating one. */
const NewChannelParams = {
  ...creationPermissionParams,
  message_retention_days: Type.Optional(Type.Union([Type.String(), Type.Integer()])),
  topics_policy: Type.Optional(
    Type.Union(['inherit', 'allow_empty_topic', 'disable_empty_topic', 'empty_topic_only'].map((v) => Type.Literal(v))),
  ),
  folder_id: Type.Optional(Type.Integer({ description: 'The channel folder the new channels go into.' })),
};

const SendNewSubscriptionMessages = Type.Optional(
  Type.Boolean({
    default: true,
    description: 'Whether the others subscribed hear of it from the notification bot (never when more than 100 are).',
  }),
);

/** A folder named for new channels must exist (the realm refuses an unknown one with the original's words). */
async function checkFolder(caller: CallerContext, folderId: number | undefined): Promise<void> {
  if (folderId !== undefined)
    await caller.actors.ask(caller.realm, { type: 'realm.findChannelFolder', folder_id: folderId });
}

/** Subscribing through these routes and creating channels is not for guests (the original's `require_non_guest_user`). */
function refuseGuests(principal: Principal): void {
  if (isGuest(principal)) throw new ChatError('BAD_REQUEST', 'Not allowed for guest users');
}

async function channelsOf(caller: CallerContext): Promise<ChannelEntry[]> {
  return caller.actors.ask(caller.realm, { type: 'realm.channels' });
}

/** The private channels the caller may know of and read through his groups, as the realm knows them now. */
export async function channelGrantsOf(caller: CallerContext): Promise<ChannelGrants> {
  return caller.actors.ask(caller.realm, { type: 'realm.channelGrants', user_id: caller.principal.user_id });
}

interface SubscribeParams
  extends Partial<Omit<ChannelOptions, 'name'>>, Partial<Record<ChannelPermission, GroupSetting | undefined>> {
  subscriptions: Array<{ name: string; description?: string | undefined; color?: string | undefined }>;
  principals?: number[] | string[] | undefined;
  authorization_errors_fatal?: boolean | undefined;
}

/** Subscribes the caller (or the principals) to channels, creating missing ones: POST and PATCH /users/me/subscriptions. */
async function subscribe(
  caller: CallerContext,
  params: SubscribeParams,
  created: NewChannel[] = [],
  bots: Set<number> = new Set(),
) {
  const { principal, actors } = caller;
  checkChannelCount(params.subscriptions);
  const settings = await caller.settings();
  const users = await principalsOf(caller, params.principals);
  for (const u of users) if (u.is_bot) bots.add(u.user_id);
  const subscribed: Record<string, string[]> = {};
  const already: Record<string, string[]> = {};
  const unauthorized: string[] = [];
  for (const sub of params.subscriptions) if (sub.color !== undefined) checkColor(sub.color);
  const names = params.subscriptions.map((sub) => checkChannelName(sub.name));
  const entries = await Promise.all(
    names.map((name) =>
      caller.channelByName(name).catch((err: unknown) => {
        if (err instanceof ChatError && err.code === 'STREAM_DOES_NOT_EXIST') return undefined;
        throw err;
      }),
    ),
  );
  // The new channels are judged first (the original's list_to_streams), their permissions once; then
  // the existing ones; nothing is created before all of it passed.
  const specs = names.map((name, i) =>
    entries[i]
      ? undefined
      : newChannelSpec(principal, settings, { ...params, name, description: params.subscriptions[i]!.description }),
  );
  const permissions = specs.some((spec) => spec) ? await newChannelPermissions(caller, params) : {};
  const refused = await refusedChannels(caller, entries, users, settings);
  if (refused.unreadable.length > 0 && params.authorization_errors_fatal !== false) {
    throw unableToAccessChannel(refused.unreadable[0]!);
  }
  if (refused.insufficient) throw new ChatError('BAD_REQUEST', 'Insufficient permission');
  for (const [i, sub] of params.subscriptions.entries()) {
    const [name, found] = [names[i]!, entries[i]];
    // The subscribers' color: the one asked for, else the next of each one's palette.
    const color = sub.color !== undefined ? { color: sub.color } : {};
    if (found && refused.unreadable.includes(found.name)) {
      if (!unauthorized.includes(found.name)) unauthorized.push(found.name);
      continue;
    }
    if (!found) {
      const spec = { ...specs[i]!, permissions, ...color };
      const ids = users.map((u) => u.user_id);
      const channelId = await createChannel(actors, principal.realm, spec, principal.user_id, ids);
      await tellAccessChanges(actors, principal.realm, channelId, [], ids);
      for (const u of users) (subscribed[u.user_id] ??= []).push(name);
      created.push({ id: channelId, spec, subscribers: ids });
      continue;
    }
    const ids = users.map((u) => u.user_id);
    const first = await accessAddsFirst(actors, principal.realm, found.channel_id, ids);
    const result = await actors
      .ask(channelAddress(principal.realm, found.channel_id), {
        type: 'channel.subscribe',
        actor: principal,
        users,
        settings,
        ...color,
        ...(first.size > 0 ? { first: [...first].map(([user_id, events]) => ({ user_id, events })) } : {}),
      })
      .catch((err: unknown) => {
        // Only a channel one cannot read is listed; any other refusal fails the request (as the original).
        if (params.authorization_errors_fatal === false && isUnableToAccessChannel(err)) return undefined;
        throw err;
      });
    if (!result) {
      unauthorized.push(found.name);
      continue;
    }
    if (result.added.length > 0) await tellSubscribersChanged(caller, found.channel_id, result.added, [], first);
    for (const id of result.added) (subscribed[id] ??= []).push(found.name);
    for (const id of result.already) (already[id] ??= []).push(found.name);
  }
  return {
    subscribed,
    already_subscribed: already,
    ...(params.authorization_errors_fatal === false ? { unauthorized } : {}),
  };
}

/**
 * The original judges every existing channel before it creates or subscribes anything
 * (filter_stream_authorization_for_adding_subscribers, in one transaction): the channels the caller
 * cannot read, then whether any readable one refuses him adding others. The channel actor asks
 * the same again when subscribing, for a change in between.
 */
async function refusedChannels(
  caller: CallerContext,
  entries: Array<ChannelEntry | undefined>,
  users: UserRef[],
  settings: Pick<RealmSettings, 'can_add_subscribers_group'>,
): Promise<{ unreadable: string[]; insufficient: boolean }> {
  const who = caller.principal;
  const others = users.some((u) => u.user_id !== who.user_id);
  const unreadable: string[] = [];
  let insufficient = false;
  // The channels are asked side by side, then judged in the request's order.
  const infos = await Promise.all(
    entries.map((entry) =>
      entry
        ? caller.channelInfo(entry.channel_id).catch((err: unknown) => {
            if (err instanceof ChatError && err.code === 'BAD_REQUEST') return undefined;
            throw err;
          })
        : undefined,
    ),
  );
  for (const [i, entry] of entries.entries()) {
    if (!entry) continue;
    const info = infos[i];
    const subscribed = info?.subscribers.includes(who.user_id) ?? false;
    if (!info || !mayReadChannel(who, info, subscribed)) unreadable.push(entry.name);
    else if (others && !mayAddSubscribers(who, info, subscribed, settings.can_add_subscribers_group))
      insufficient = true;
  }
  return { unreadable, insufficient };
}

/** A restricted guest's access follows the channel's subscribers (see `tellAccessChanges`). */
async function tellSubscribersChanged(
  caller: CallerContext,
  channelId: number,
  added: number[],
  removed: number[],
  told?: Map<number, QueueEvent[]>,
) {
  const { actors, principal } = caller;
  if (!(await restrictsGuests(actors, principal.realm))) return;
  const info = await actors.ask(channelAddress(principal.realm, channelId), { type: 'channel.info' });
  const after = info.subscribers;
  const before = [...after.filter((id) => !added.includes(id)), ...removed];
  await tellAccessChanges(actors, principal.realm, channelId, before, after, told);
}

/** Unsubscribes the caller (or, with permission, the principals): DELETE and PATCH /users/me/subscriptions. */
async function unsubscribe(caller: CallerContext, names: string[], principals: number[] | string[] | undefined) {
  const { principal, actors } = caller;
  checkChannelCount(names);
  const users = await principalsOf(caller, principals);
  const removed: string[] = [];
  const notRemoved: string[] = [];
  for (const name of names) {
    const entry = await caller.channelByName(name);
    const result = await actors.ask(channelAddress(principal.realm, entry.channel_id), {
      type: 'channel.unsubscribe',
      actor: principal,
      users,
    });
    if (result.removed.length > 0) await tellSubscribersChanged(caller, entry.channel_id, [], result.removed);
    (result.removed.length > 0 ? removed : notRemoved).push(entry.name);
  }
  return { removed, not_removed: notRemoved };
}

export function channelRoutes(options: ApiOptions): Route[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/users/me/subscriptions',
      auth: 'required',
      params: Type.Object({
        include_subscribers: Type.Optional(
          Type.Union([Type.Boolean(), Type.Literal('partial')], {
            default: false,
            description:
              '`partial`: the whole list of a channel with fewer than 250 subscribers; of a bigger one, `partial_subscribers`: its bots and the users active in the last 14 days.',
          }),
        ),
      }),
      summary: 'Get subscribed channels',
      description: 'The channels the caller is subscribed to, with personal settings.',
      tags: ['channels'],
      async handler({ params, principal, actors }) {
        const caller = new CallerContext(actors, principal);
        const state = await caller.state();
        const infos = await Promise.all(Object.keys(state.subscriptions).map((id) => caller.channelInfo(Number(id))));
        const lists = await subscriberLists(caller, params.include_subscribers, infos);
        const subscriptions = infos.map((info) => subscriptionJson(info, state.subscriptions[info.stream_id]!, lists));
        return { subscriptions: subscriptions.sort((a, b) => a.name.localeCompare(b.name)) };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/users/me/subscriptions',
      auth: 'required',
      params: Type.Object({
        subscriptions: Type.Array(
          Type.Object({
            name: Type.String(),
            description: Type.Optional(Type.String()),
            color: Type.Optional(Type.String()),
          }),
        ),
        principals: Type.Optional(Principals),
        authorization_errors_fatal: Type.Optional(Type.Boolean({ default: true })),
        announce: Type.Optional(Type.Boolean({ default: false })),
        send_new_subscription_messages: SendNewSubscriptionMessages,
        invite_only: Type.Optional(Type.Boolean({ default: false })),
        is_web_public: Type.Optional(Type.Boolean({ default: false })),
        is_default_stream: Type.Optional(Type.Boolean({ default: false })),
        history_public_to_subscribers: Type.Optional(Type.Boolean()),
        ...NewChannelParams,
      }),
      summary: 'Subscribe to channels',
      description: 'Subscribes the caller (or the principals) to channels, creating the ones that do not exist.',
      tags: ['channels'],
      async handler({ params, principal, actors }) {
        refuseGuests(principal);
        const caller = new CallerContext(actors, principal);
        await checkFolder(caller, params.folder_id);
        const [created, bots] = [[] as NewChannel[], new Set<number>()];
        const reply = await subscribe(caller, params, created, bots);
        if (params.announce) await announceChannels(caller, created, options);
        await noteNewChannels(caller, created, options);
        if (params.send_new_subscription_messages === false) return reply;
        const names = created.map((c) => c.spec.name);
        const sent = await tellNewSubscribers(caller, reply.subscribed, names, bots, options);
        return { ...reply, new_subscription_messages_sent: sent };
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/users/me/subscriptions',
      auth: 'required',
      params: Type.Object({ subscriptions: Type.Array(Type.String()), principals: Type.Optional(Principals) }),
      summary: 'Unsubscribe from channels',
      description: 'Removes the caller (or, with permission, other users) from channels.',
      tags: ['channels'],
      async handler({ params, principal, actors }) {
        return unsubscribe(new CallerContext(actors, principal), params.subscriptions, params.principals);
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/users/me/subscriptions',
      auth: 'required',
      params: Type.Object({
        add: Type.Optional(
          Type.Array(
            Type.Object({
              name: Type.String(),
              color: Type.Optional(Type.String()),
              description: Type.Optional(Type.String()),
            }),
          ),
        ),
        delete: Type.Optional(Type.Array(Type.String())),
      }),
      summary: 'Update subscriptions',
      description:
        'Subscribes the caller to the channels of `add` (creating missing ones) and unsubscribes from `delete`.',
      tags: ['channels'],
      async handler({ params, principal, actors }) {
        // Even when only leaving: the original composes the subscribing view, which refuses guests.
        refuseGuests(principal);
        const caller = new CallerContext(actors, principal);
        const created: NewChannel[] = [];
        const added = await subscribe(caller, { subscriptions: params.add ?? [] }, created);
        await noteNewChannels(caller, created, options);
        const removed = await unsubscribe(caller, params.delete ?? [], undefined);
        return { ...added, ...removed };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/channels/create',
      auth: 'required',
      params: Type.Object({
        name: Type.String(),
        subscribers: Type.Array(Type.Integer()),
        description: Type.Optional(Type.String()),
        invite_only: Type.Optional(Type.Boolean({ default: false })),
        is_web_public: Type.Optional(Type.Boolean({ default: false })),
        is_default_stream: Type.Optional(Type.Boolean({ default: false })),
        history_public_to_subscribers: Type.Optional(Type.Boolean()),
        announce: Type.Optional(Type.Boolean({ default: false })),
        // Everyone it subscribes is subscribed to a channel the request creates, so no one is sent a DM.
        send_new_subscription_messages: SendNewSubscriptionMessages,
        ...NewChannelParams,
      }),
      summary: 'Create a channel',
      description: 'Creates a channel with its first subscribers.',
      tags: ['channels'],
      response: Type.Object({ id: Type.Integer() }),
      async handler({ params, principal, actors }) {
        refuseGuests(principal);
        const caller = new CallerContext(actors, principal);
        const settings = await caller.settings();
        const permissions = await newChannelPermissions(caller, params);
        const spec = { ...newChannelSpec(principal, settings, params), permissions };
        await checkFolder(caller, params.folder_id);
        const ids = (await principalsOf(caller, params.subscribers)).map((u) => u.user_id);
        const id = await createChannel(actors, principal.realm, spec, principal.user_id, ids);
        await tellAccessChanges(actors, principal.realm, id, [], ids);
        const created = [{ id, spec, subscribers: ids }];
        if (params.announce) await announceChannels(caller, created, options);
        await noteNewChannels(caller, created, options);
        return { id };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/streams',
      auth: 'required',
      params: Type.Object({
        include_public: Type.Optional(Type.Boolean({ default: true })),
        include_web_public: Type.Optional(Type.Boolean({ default: false })),
        include_subscribed: Type.Optional(Type.Boolean({ default: true })),
        exclude_archived: Type.Optional(Type.Boolean({ default: true })),
        include_all: Type.Optional(Type.Boolean({ default: false })),
        include_all_active: Type.Optional(
          Type.Boolean({
            default: false,
            deprecated: true,
            description: 'The old name of `include_all`: true means it.',
          }),
        ),
        include_default: Type.Optional(Type.Boolean({ default: false })),
        include_owner_subscribed: Type.Optional(Type.Boolean({ default: false })),
        include_can_access_content: Type.Optional(
          Type.Boolean({
            default: false,
            description:
              'Every channel whose messages the caller may read (web-public ones, subscribed ones, public ones unless a guest, and private ones whose `can_subscribe_group` or `can_add_subscribers_group` holds a non-guest caller), whatever `include_public`, `include_subscribed` and `include_web_public` say; `include_all` still wins.',
          }),
        ),
      }),
      summary: 'Get all channels',
      description: 'The channels the caller may see, by the filters given.',
      tags: ['channels'],
      async handler({ params, principal, actors }) {
        const streams = await visibleChannels(new CallerContext(actors, principal), {
          include_public: params.include_public ?? true,
          include_web_public: params.include_web_public ?? false,
          include_subscribed: params.include_subscribed ?? true,
          exclude_archived: params.exclude_archived ?? true,
          include_all: params.include_all === true || params.include_all_active === true,
          include_can_access_content: params.include_can_access_content ?? false,
        });
        return { streams: params.include_default ? streams : streams.map(({ is_default: _d, ...s }) => s) };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/streams/{stream_id}',
      auth: 'required',
      params: Type.Object({ stream_id: Type.Integer() }),
      summary: 'Get a channel by ID',
      description: 'One channel the caller may see.',
      tags: ['channels'],
      async handler({ params, principal, actors }) {
        const caller = new CallerContext(actors, principal);
        const info = await caller.channelInfo(params.stream_id);
        return { stream: channelJson(info) };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/get_stream_id',
      auth: 'required',
      params: Type.Object({ stream: Type.String({ description: 'The name of the channel.' }) }),
      summary: 'Get channel ID',
      description: 'The id of a channel, by name.',
      tags: ['channels'],
      response: Type.Object({ stream_id: Type.Integer() }),
      async handler({ params, principal, actors }) {
        const caller = new CallerContext(actors, principal);
        // The original's access_stream_by_name: one answer for "no such channel" and "not yours to see",
        // as the reference's get-stream-id 400 shows it; a guest sees only channels they are in.
        const invalid = (err: unknown): never => {
          const refusal = err instanceof ChatError && ['STREAM_DOES_NOT_EXIST', 'BAD_REQUEST'].includes(err.code);
          throw refusal ? new ChatError('BAD_REQUEST', `Invalid channel name '${params.stream}'`) : err;
        };
        const entry = await caller.channelByName(params.stream).catch(invalid);
        if (entry.invite_only || !maySeePublicChannels(principal))
          await caller.channelInfo(entry.channel_id).catch(invalid);
        return { stream_id: entry.channel_id };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/streams/{stream_id}/members',
      auth: 'required',
      params: Type.Object({ stream_id: Type.Integer() }),
      summary: 'Get the subscribers of a channel',
      description: "The user ids of a channel's subscribers.",
      tags: ['channels'],
      async handler({ params, principal, actors }) {
        const info = await new CallerContext(actors, principal).channelInfo(params.stream_id);
        return { subscribers: info.subscribers };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/users/me/{stream_id}/topics',
      auth: 'required',
      params: Type.Object({
        stream_id: Type.Integer(),
        allow_empty_topic_name: Type.Optional(Type.Boolean({ default: false })),
      }),
      summary: 'Get topics in a channel',
      description: 'The topics of a channel with their newest message id, newest first.',
      tags: ['channels'],
      async handler({ params, principal, actors }) {
        const caller = new CallerContext(actors, principal);
        const settings = await caller.settings();
        const topics = await actors.ask(channelAddress(principal.realm, params.stream_id), {
          type: 'topic.list',
          viewer: principal,
        });
        const display = params.allow_empty_topic_name ? null : settings.empty_topic_display_name;
        return { topics: topics.map((t) => ({ ...t, name: t.name === '' && display !== null ? display : t.name })) };
      },
    }),
    ...channelAdminRoutes(options),
    ...subscriptionSettingsRoutes(),
  ];
}

export interface ChannelFilter {
  include_public: boolean;
  include_web_public: boolean;
  include_subscribed: boolean;
  exclude_archived: boolean;
  /** Every channel, for administrators; for anyone else, every channel they may know of (the original's metadata access). */
  include_all: boolean;
  /** Every channel whose messages the caller may read, in place of the three flags above (as the original). */
  include_can_access_content?: boolean;
}

/** The channels `GET /streams` lists for the caller (also register's `streams`), each with `is_default`. */
export async function visibleChannels(caller: CallerContext, filter: ChannelFilter) {
  const { principal } = caller;
  const seesPublic = maySeePublicChannels(principal);
  const all = filter.include_all && maySeeAllChannels(principal);
  const byAccess = !all && (filter.include_can_access_content || filter.include_all);
  // Which private channels the caller's groups grant: the realm answers for all of them at once.
  const [entries, state, grants] = await Promise.all([
    channelsOf(caller),
    caller.state(),
    byAccess && seesPublic ? channelGrantsOf(caller) : undefined,
  ]);
  const subscribed = (id: number) => Boolean(state.subscriptions[id]);
  const granted = new Set(filter.include_all ? grants?.metadata : grants?.content);
  const wanted = entries.filter((e) => {
    if (e.is_archived && filter.exclude_archived) return false;
    if (all) return true;
    // A private channel's groups may grant a non-guest access (entries kept before the directory had
    // their settings are asked of the channel, below).
    if (byAccess && e.invite_only)
      return subscribed(e.channel_id) || granted.has(e.channel_id) || (seesPublic && !e.permissions);
    if (byAccess) return e.is_web_public || subscribed(e.channel_id) || seesPublic;
    if (filter.include_subscribed && subscribed(e.channel_id)) return true;
    if (filter.include_web_public && e.is_web_public) return true;
    return filter.include_public && seesPublic && !e.invite_only;
  });
  const infos = await Promise.all(wanted.map((e) => caller.channelInfo(e.channel_id).catch(() => undefined)));
  // include_all: what the channel shows the caller (metadata access); otherwise content access.
  const allowed = (info: ChannelInfo) =>
    !filter.include_can_access_content ||
    filter.include_all ||
    mayReadChannel(principal, info, subscribed(info.stream_id));
  return infos
    .filter((info): info is ChannelInfo => info !== undefined && allowed(info))
    .map((info) => channelJson(info, entries.find((e) => e.channel_id === info.stream_id)?.is_default ?? false));
}
