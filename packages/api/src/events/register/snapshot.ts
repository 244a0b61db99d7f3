import {
  ChatError,
  channelAddress,
  isAdministrator,
  isGuest,
  mayKnowFormerChannel,
  maySeePublicChannels,
  newSubscription,
  participantsOfKey,
  type ChannelEntry,
  type ChannelGrants,
  type ActorAddress,
  type ChannelInfo,
  type Organization,
  type RealmSettings,
  type UserSnapshot,
} from '@chat/protocol';
import type { CallerContext } from '../../context.js';
import { channelJson, neverSubscribedJson, subscriberLists, subscriptionJson } from '../../channels/json.js';
import { withGlobalDefaults } from '../../channels/notification-defaults.js';
import { unreadMessages } from '../../messages/fetch.js';
import type { ApiOptions } from '../../options.js';
import { FEATURE_LEVEL, ZULIP_VERSION } from '../../options.js';
import { realmUsers, type Restriction } from './realm-users.js';
import { accessibleUserIds } from '../../users/access.js';
import { fakeEmailDomain } from '../../email-domain.js';
import { presentBot } from '../../bots/json.js';
import { UnreadIndex } from './unread.js';
import { mutingSections, personalSections, scheduledSections } from './personal.js';
import { mutedTopics } from '../../channels/muted-topics.js';
import { groupSections } from './group-sections.js';
import { peopleSections, type PeopleRequest } from './people.js';
import { realmSection } from './realm-section.js';
import { emptySections, userDefaultsSection } from './empty-sections.js';
import { ownAccountSection } from './own-account.js';

type Body = Record<string, unknown>;

/** Sections built from one actor's reads, and the event type that changes each. */
const SECTION_EVENTS: Array<[string, string]> = [
  ['drafts', 'drafts'],
  ['saved_snippets', 'saved_snippets'],
  ['navigation_views', 'navigation_view'],
  ['push_devices', 'push_device'],
  ['realm_user_groups', 'user_group'],
  ['channel_folders', 'channel_folder'],
  ['user_settings', 'user_settings'],
  ['user_status', 'user_status'],
  ['presences', 'presence'],
  ['realm_bots', 'realm_bot'],
  ['muted_users', 'muted_users'],
  ['alert_words', 'alert_words'],
  ['scheduled_messages', 'scheduled_messages'],
  ['reminders', 'reminders'],
];

/** A channel that refused (or does not exist) is left out. */
const refused = (err: unknown): undefined => {
  if (err instanceof ChatError) return undefined;
  throw err;
};

/** The original covers the conversations of this many of the newest unread messages. */
const MAX_UNREAD = 50_000;
/** What an unsubscribed channel shows for personal settings it no longer has. */
const FORMER_SUBSCRIPTION = newSubscription('#c2c2c2');

export interface SnapshotRequest {
  user_id: number;
  /** null: every section. */
  fetch: Set<string> | null;
  client_gravatar: boolean;
  include_subscribers: boolean | 'partial';
  /** Without the `archived_channels` capability, archived channels are left out. */
  archived_channels: boolean;
  /** Without the `notification_settings_null` capability, null notification settings read as the global ones. */
  notification_settings_null: boolean;
  /** The client capability: deactivated user groups are listed too. */
  include_deactivated_groups?: boolean;
  /** The client capability: linkifiers (with URL templates) are listed. */
  linkifier_url_template?: boolean;
  /** The client capability: users a restricted guest may not access are left out, not shown as "Unknown user". */
  user_list_incomplete?: boolean;
  /** Presence format and history, and whether the client reads settings as an object. */
  people?: PeopleRequest;
}

/**
 * The state a client starts from, section by section as `fetch_event_types`
 * asks. Fields that later events change live in mutable structures until
 * `finish`, so that events that raced the snapshot can be folded in.
 */
export class Snapshot {
  readonly body: Record<string, unknown> = {};
  unread: UnreadIndex | undefined;
  maxMessageId = -1;
  recent = new Map<string, { user_ids: number[]; max_message_id: number }>();
  /**
   * The event types whose state the snapshot holds: of those, the queue
   * drops events of changes the snapshot's reads already saw. The state of
   * each comes from the actor its events come from (see `ReadPositions`).
   */
  readonly types = new Set<string>();
  /**
   * A restricted guest's `realm_users`: whom he accesses (`accessibleUserIds`), so that his queue passes
   * one `realm_user` add per person from there (`actors/queue/src/access.ts`).
   */
  accessible: number[] | undefined;

  /**
   * Positions the snapshot holds that no read noted: the channels the directory has as archived, up to
   * the change it last took in from each (`ChannelEntry.position`).
   */
  readonly held: Array<{ section: string; actor: ActorAddress; position: number }> = [];

  private readonly me: number;
  private grants?: Promise<ChannelGrants>;
  private org?: Promise<Organization>;
  private readonly infos = new Map<number, Promise<ChannelInfo | undefined>>();

  constructor(private readonly req: SnapshotRequest) {
    this.me = req.user_id;
  }

  wants(section: string): boolean {
    return this.req.fetch === null || this.req.fetch.has(section);
  }

  /**
   * Reads the sections. They are independent reads, asked at once (through an
   * edge worker each round of asks crosses to the actors and back, and one
   * after another they were most of a register's time); each part answers
   * its fields, which go into the body in this order whatever order they
   * came in. Only the order of the body's fields would tell it apart.
   */
  async build(caller: CallerContext, options: ApiOptions): Promise<void> {
    const [state, settings, access] = await Promise.all([caller.state(), caller.settings(), accessibleUserIds(caller)]);
    const restriction: Restriction | undefined = access
      ? {
          access,
          domain: fakeEmailDomain(options.externalUrl, options.fakeEmailDomain),
          incomplete: this.req.user_list_incomplete ?? false,
        }
      : undefined;
    const wants = (section: string) => this.wants(section);
    const parts: Array<Promise<object> | object> = [
      {
        zulip_version: ZULIP_VERSION,
        zulip_feature_level: FEATURE_LEVEL,
        zulip_merge_base: ZULIP_VERSION,
        max_reminder_note_length: 1000,
        max_bulk_new_subscription_messages: 100,
      },
      this.realm(caller, options),
      emptySections(wants),
      this.read('custom_profile_fields', 'custom_profile_fields', () =>
        caller.actors.ask(caller.realm, { type: 'realm.profileFields' }),
      ),
      this.read('realm_playgrounds', 'realm_playgrounds', () =>
        caller.actors.ask(caller.realm, { type: 'realm.playgrounds' }),
      ),
      this.userDefaults(caller),
      this.subscriptions(caller, state),
      this.users(caller, settings, restriction),
      this.wants('realm_bot')
        ? caller.actors
            .ask(caller.realm, { type: 'realm.bots', actor: caller.principal, scope: 'administered' })
            .then((bots) => ({ realm_bots: bots.map(presentBot) }))
        : {},
      this.read('user_topic', 'user_topics', () => state.user_topics),
      this.read('realm_emoji', 'realm_emoji', () => caller.actors.ask(caller.realm, { type: 'realm.emoji' })),
      this.wants('muted_topics')
        ? mutedTopics(caller, state.user_topics).then((muted) => ({ muted_topics: muted }))
        : {},
      this.wants('starred_messages') ? { starred_messages: [...state.starred].sort((a, b) => a - b) } : {},
      this.read('stream', 'streams', async () => this.streams(caller, state, await this.directory(caller))),
      // The original pretends to guests that there are no default channels.
      this.read('default_streams', 'realm_default_streams', () =>
        isGuest(caller.principal) ? [] : caller.actors.ask(caller.realm, { type: 'realm.defaultChannels' }),
      ),
      // Clients without `linkifier_url_template` read none, as in the original.
      this.read('realm_linkifiers', 'realm_linkifiers', () =>
        this.req.linkifier_url_template ? caller.actors.ask(caller.realm, { type: 'realm.linkifiers' }) : [],
      ),
      personalSections(caller, wants),
      mutingSections(caller, wants),
      scheduledSections(caller, wants),
      groupSections(caller, wants, this.req.include_deactivated_groups ?? false),
      peopleSections(caller, this.req.people ?? { slim_presence: false, user_settings_object: false }, wants, access),
      this.messages(caller, state),
    ];
    for (const part of await Promise.all(parts)) Object.assign(this.body, part);
    for (const [section, type] of SECTION_EVENTS) if (section in this.body) this.types.add(type);
    if (access && this.wants('realm_user')) this.accessible = [...access];
  }

  /** `{[field]: read()}` if the snapshot wants `section`, which it then holds. */
  private async read(section: string, field: string, read: () => unknown): Promise<Body> {
    if (!this.wants(section)) return {};
    const value = await read();
    this.types.add(section);
    return { [field]: value };
  }

  private async realm(caller: CallerContext, options: ApiOptions): Promise<Body> {
    if (!this.wants('realm')) return {};
    const [info, org] = await Promise.all([
      caller.actors.ask(caller.realm, { type: 'realm.info' }),
      this.organization(caller),
    ]);
    this.types.add('realm');
    return realmSection(org, info, options);
  }

  private async userDefaults(caller: CallerContext): Promise<Body> {
    if (!this.wants('realm_user_settings_defaults')) return {};
    const org = await this.organization(caller);
    this.types.add('realm_user_settings_defaults');
    return userDefaultsSection(org.user_defaults);
  }

  private async subscriptions(caller: CallerContext, state: UserSnapshot): Promise<Body> {
    if (!this.wants('subscription')) return {};
    // Which channels he may know of follows his role and groups, and the channels' privacy and web-public
    // flags, as the realm has them now, in one answer asked before any channel is read: a change of any
    // sends `stream` create and delete as a change of the realm, covered at that answer's position (see
    // reads.ts; two asks could be answered on either side of such a change).
    const grants = await this.directory(caller);
    const channels = grants.channels ?? [];
    const subscribed = new Set(Object.keys(state.subscriptions).map(Number));
    const unsubscribed = new Set(state.unsubscribed);
    // Of his former channels, one keeps only those he may still know of, as in the original
    // (the channel would refuse him the others).
    const known = new Map(channels.map((c) => [c.channel_id, c]));
    const former = [...unsubscribed].filter((id) => {
      const channel = known.get(id);
      return channel !== undefined && mayKnowFormerChannel(caller.principal, channel);
    });
    // A private channel that has just removed him refuses him although his list still names it: asked again
    // as anyone, it is listed, and his list's `subscription` remove follows (the register used to fail).
    const own = (id: number) => caller.channelInfo(id).catch(() => this.channel(caller, id));
    const [all, global, never] = await Promise.all([
      Promise.all([...subscribed, ...former].map(own)),
      this.req.notification_settings_null ? null : caller.actors.ask(caller.me, { type: 'user.settings' }),
      this.neverSubscribed(caller, channels, subscribed, unsubscribed, grants),
    ]);
    const infos = all.filter(
      (info): info is ChannelInfo => info !== undefined && (this.req.archived_channels || !info.is_archived),
    );
    const lists = await subscriberLists(caller, this.req.include_subscribers, [...infos, ...never]);
    const json = infos.map((info) => {
      const own = state.subscriptions[info.stream_id] ?? FORMER_SUBSCRIPTION;
      const sub = subscriptionJson(info, global ? withGlobalDefaults(own, global) : own, lists);
      return { id: info.stream_id, sub };
    });
    // `subscription remove` comes from the UserActor, like the list; the rest from the channels read.
    this.types.add('subscription').add('stream');
    return {
      subscriptions: json.filter((j) => subscribed.has(j.id)).map((j) => j.sub),
      unsubscribed: json.filter((j) => !subscribed.has(j.id)).map((j) => j.sub),
      never_subscribed: never.map((info) => neverSubscribedJson(info, lists)),
    };
  }

  private async users(caller: CallerContext, settings: RealmSettings, restriction?: Restriction): Promise<Body> {
    if (!this.wants('realm_user')) return {};
    const { users, active, nonActive } = await realmUsers(caller, this.req.client_gravatar, restriction);
    const me = users.find((u) => u.user_id === this.me)!;
    this.types.add('realm_user');
    return {
      realm_users: active,
      realm_non_active_users: nonActive,
      ...ownAccountSection(caller.principal, me, settings),
    };
  }

  /** No fields: the newest message id and the unread messages, which `finish` writes. */
  private async messages(caller: CallerContext, state: UserSnapshot): Promise<Body> {
    if (this.wants('recent_private_conversations')) {
      for (const c of state.conversations)
        if (c.max_message_id > 0) this.recent.set(c.key, { user_ids: c.user_ids, max_message_id: c.max_message_id });
    }
    if (this.wants('message') && !this.wants('update_message_flags')) {
      // Without unread messages to read, each conversation is asked only for its newest id.
      this.maxMessageId = Math.max(this.maxMessageId, await caller.newestMessageId());
      this.types.add('message');
    }
    if (this.wants('message') && this.wants('update_message_flags')) {
      const muted = Object.entries(state.subscriptions)
        .filter(([, s]) => s.is_muted)
        .map(([id]) => Number(id));
      this.unread = new UnreadIndex(this.me, muted);
      const { messages, newest } = await unreadMessages(caller, MAX_UNREAD);
      for (const m of messages) this.unread.add(m);
      for (const [key, id] of newest) this.foldNewest(key, id);
      this.types.add('message').add('update_message_flags').add('delete_message').add('update_message');
    }
    return {};
  }

  /** The realm's organization settings, asked once for the sections that read them (`realm`, the user defaults). */
  private organization(caller: CallerContext) {
    return (this.org ??= caller.actors.ask(caller.realm, { type: 'realm.organization' }));
  }

  /**
   * His role and grants, and the directory's entries, in one answer of the realm, asked once: the sections
   * that read it hold the realm's changes of privacy, roles and groups up to its position (reads.ts).
   */
  private directory(caller: CallerContext): Promise<ChannelGrants> {
    const user_id = caller.principal.user_id;
    return (this.grants ??= caller.actors.ask(caller.realm, { type: 'realm.channelGrants', user_id, channels: true }));
  }

  /**
   * A channel as it is now, whoever asks (the caller decided he may see it): undefined if it does not exist
   * (yet). Each is asked once.
   */
  private channel(caller: CallerContext, id: number): Promise<ChannelInfo | undefined> {
    let asked = this.infos.get(id);
    if (!asked) {
      const address = channelAddress(caller.principal.realm, id);
      asked = caller.actors.ask(address, { type: 'channel.info' }).catch(refused);
      this.infos.set(id, asked);
    }
    return asked;
  }

  /**
   * The `streams` section, as `GET /streams` lists them (administrators every channel): which channels, by
   * the directory and his role as the realm answered (`directory`: the `stream` create and delete that a
   * change of privacy, role or groups sends come from the realm, covered at that answer), each as its
   * channel answers (whose own changes, creating or archiving it, are covered at that answer). A private
   * one he is not in is listed only if the channel lists him, since subscribing and leaving tell him from
   * the channel. Archived ones are left out; one the directory has as archived is not asked, and is held
   * up to the channel's change the directory last took in (`held`), so its `stream` delete is dropped too.
   */
  private async streams(caller: CallerContext, state: UserSnapshot, grants: ChannelGrants) {
    const { realm, user_id } = caller.principal;
    const all = isAdministrator(grants);
    const seesPublic = maySeePublicChannels(grants);
    const sees = (e: ChannelEntry) => all || e.is_web_public || (seesPublic && !e.invite_only);
    const subscribed = (id: number) => state.subscriptions[id] !== undefined;
    const entries = (grants.channels ?? []).filter((e) => {
      if (!e.is_archived) return sees(e) || subscribed(e.channel_id);
      if (e.position !== undefined)
        this.held.push({ section: 'stream', actor: channelAddress(realm, e.channel_id), position: e.position });
      return false;
    });
    // His own channels through the answers the subscription section shares (if he has left one since, the
    // channel answers anyone, and does not list him).
    const read = (id: number) =>
      subscribed(id) ? caller.channelInfo(id).catch(() => this.channel(caller, id)) : this.channel(caller, id);
    const infos = await Promise.all(entries.map((e) => read(e.channel_id)));
    return entries.flatMap((e, i) => {
      const info = infos[i];
      if (!info || info.is_archived || !(sees(e) || info.subscribers.includes(user_id))) return [];
      return [channelJson(info)];
    });
  }

  /**
   * The channels he was never in that he may know of, by his role and groups
   * as the realm answered (`grants`, which may be newer than his
   * authentication): who cannot see public channels (guests) learns only the
   * web-public ones; administrators learn private ones too (they may read their
   * metadata), as in the original; a non-guest also the private ones his groups
   * let him know of (has_metadata_access_to_channel_via_groups; for entries kept
   * before the directory had channels' settings, the channel decides). Only
   * those channels are read (the answers the `streams` section reads too).
   */
  private async neverSubscribed(
    caller: CallerContext,
    channels: ChannelEntry[],
    subscribed: Set<number>,
    unsubscribed: Set<number>,
    grants: ChannelGrants,
  ): Promise<ChannelInfo[]> {
    const seesPublic = maySeePublicChannels(grants);
    const seesPrivate = isAdministrator(grants);
    const granted = new Set(grants.metadata);
    const legacy = (c: ChannelEntry) => c.invite_only && c.permissions === undefined && !seesPrivate;
    const wanted = channels
      .filter((c) => !subscribed.has(c.channel_id) && !unsubscribed.has(c.channel_id))
      .filter((c) => this.req.archived_channels || !c.is_archived)
      .filter((c) =>
        c.invite_only
          ? seesPrivate || granted.has(c.channel_id) || (seesPublic && legacy(c))
          : seesPublic || c.is_web_public,
      );
    // Asked without his role and groups as authentication saw them, which may be older than the realm's
    // answer; only legacy entries are left to the channel to decide.
    const ask = (c: ChannelEntry) =>
      legacy(c) ? caller.channelInfo(c.channel_id).catch(refused) : this.channel(caller, c.channel_id);
    const infos = await Promise.all(wanted.map(ask));
    return infos.filter((info) => info !== undefined).sort((a, b) => a.name.localeCompare(b.name));
  }

  /**
   * A conversation's newest message, as its actor answered: the user's own
   * list of direct conversations may not have heard of it yet, and the
   * queue drops its event.
   */
  foldNewest(key: string, id: number): void {
    this.maxMessageId = Math.max(this.maxMessageId, id);
    const users = participantsOfKey(key);
    if (!users || !this.wants('recent_private_conversations')) return;
    const known = this.recent.get(key);
    if (known && known.max_message_id >= id) return;
    const others = users.filter((u) => u !== this.me);
    this.recent.set(key, { user_ids: others, max_message_id: id });
  }

  finish(emptyTopicName: string | null): Record<string, unknown> {
    if (this.wants('message')) this.body.max_message_id = this.maxMessageId;
    if (this.unread) this.body.unread_msgs = this.unread.toJSON(emptyTopicName);
    if (this.wants('recent_private_conversations')) {
      this.body.recent_private_conversations = [...this.recent.values()]
        .sort((a, b) => b.max_message_id - a.max_message_id)
        .map((c) => ({ user_ids: c.user_ids.filter((id) => id !== this.me), max_message_id: c.max_message_id }));
    }
    return this.body;
  }
}
