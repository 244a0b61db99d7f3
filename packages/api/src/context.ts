import type { ActorClient } from '@chat/runtime';
import {
  ChatError,
  channelAddress,
  realmAddress,
  userAddress,
  type ChannelEntry,
  type ChannelInfo,
  type Principal,
  type RealmSettings,
  type Resolved,
  type ResolveQuery,
  type UserRef,
  type UserSnapshot,
  type Viewer,
} from '@chat/protocol';

/**
 * An ask started now and awaited later, when a check needs it: marked handled at once, so that a refusal
 * that comes before its turn (another check failed first) is not an unhandled rejection.
 */
export function asked<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}

/**
 * What the messaging operations ask of the realm and of the caller's own
 * UserActor, bound to one request.
 */
export class CallerContext {
  private userState?: Promise<UserSnapshot>;
  private realmSettings?: Promise<RealmSettings>;
  private channelInfos?: Map<number, Promise<ChannelInfo>>;

  constructor(
    readonly actors: ActorClient,
    readonly principal: Principal,
  ) {}

  get realm() {
    return realmAddress(this.principal.realm);
  }

  get me() {
    return userAddress(this.principal.realm, this.principal.user_id);
  }

  settings(): Promise<RealmSettings> {
    return (this.realmSettings ??= this.actors.ask(this.realm, { type: 'realm.settings' }));
  }

  /** The caller's personal state; asked once per request. */
  state(): Promise<UserSnapshot> {
    return (this.userState ??= this.actors.ask(this.me, { type: 'user.state' }));
  }

  /** The newest message id the caller has received (-1 if none): subscribed channels and direct conversations. */
  async newestMessageId(): Promise<number> {
    const state = await this.state();
    const infos = await Promise.all(Object.keys(state.subscriptions).map((id) => this.channelInfo(Number(id))));
    return Math.max(
      -1,
      ...state.conversations.map((c) => c.max_message_id),
      ...infos.map((info) => info.last_message_id ?? -1),
    );
  }

  resolve(query: ResolveQuery): Promise<Resolved> {
    return this.actors.ask(this.realm, { type: 'realm.resolve', query });
  }

  async users(ids: number[]): Promise<Map<number, UserRef>> {
    if (ids.length === 0) return new Map();
    const { users } = await this.resolve({ user_ids: [...new Set(ids)] });
    return new Map(users.map((u) => [u.user_id, u]));
  }

  async channelByName(name: string): Promise<ChannelEntry> {
    return this.actors.ask(this.realm, { type: 'realm.findChannel', name });
  }

  /**
   * From now on each channel is asked once for the rest of the request, its
   * answer shared: for requests that only read (the register's snapshot, whose
   * sections read the same channels).
   */
  rememberChannels(): this {
    this.channelInfos ??= new Map();
    return this;
  }

  channelInfo(channelId: number): Promise<ChannelInfo> {
    const known = this.channelInfos?.get(channelId);
    if (known) return known;
    const asked = this.actors.ask(channelAddress(this.principal.realm, channelId), {
      type: 'channel.info',
      viewer: this.principal,
    });
    this.channelInfos?.set(channelId, asked);
    return asked;
  }

  /** The caller as a reader of one conversation (its read ranges decide the flags). */
  async viewer(key: string): Promise<Viewer> {
    const state = await this.state();
    return {
      user_id: this.principal.user_id,
      groups: this.principal.groups,
      role: this.principal.role,
      read: state.read[key] ?? [],
      starred: state.starred,
      unread_own: state.unread_own,
      alerted: state.alerted ?? [],
    };
  }

  /** The conversation key of each message; unknown ids (or another realm's) are refused. */
  async locate(ids: number[]): Promise<Map<number, string>> {
    const found = await this.actors.ask(this.me, { type: 'user.locate', ids });
    const keys = new Map<number, string>();
    for (const id of ids) {
      const key = found[id];
      if (!key) throw new ChatError('BAD_REQUEST', 'Invalid message(s)');
      keys.set(id, key);
    }
    return keys;
  }
}
