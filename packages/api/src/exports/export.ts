import { randomBytes } from 'node:crypto';
import {
  channelAddress,
  conversationOfKey,
  EXPORT_FULL_WITH_CONSENT,
  realmAddress,
  userAddress,
  type ActorAddress,
  type ChannelEntry,
  type Principal,
  type UserProfile,
  type ViewedMessage,
  type Viewer,
} from '@chat/protocol';
import type { ActorClient } from '@chat/runtime';
import type { AuthRequest } from '@chat/edge';
import type { ApiOptions } from '../options.js';
import { tarGz, type TarEntry } from './tar.js';

type Logger = AuthRequest['log'];

/** Messages per page asked of a channel, and per file of the export (the original's 1000 per file). */
const PAGE = 1000;

/** Where an export's file is kept, and the URL that serves it (exports.ts's download handler). */
export const exportKey = (realm: string, secret: string, name: string) => `exports/${realm}/${secret}/${name}`;
export const exportUrl = (options: ApiOptions, realm: string, secret: string, name: string) =>
  `${options.externalUrl}/${exportKey(realm, secret, name)}`;

const json = (name: string, value: unknown): TarEntry => ({
  name,
  data: Buffer.from(JSON.stringify(value, null, 2)),
});

/**
 * The export's entries, produced as the tar stream reaches them: the
 * organization, its people and public channels with their subscribers
 * (`realm.json`), then the public channels' messages 1000 to a file
 * (`messages-000001.json`, ...), each page asked of one ChannelActor in turn
 * so no actor is held for long, and a log of what was done (`export.log`).
 */
/** A conversation to read messages from, as whom. */
interface Source {
  address: ActorAddress<'channel'>;
  stream_id: number | null;
  viewer: Viewer;
}

const viewerOf = (user_id: number, role: number, groups: number[] = []): Viewer => ({
  user_id,
  groups,
  role,
  read: [],
  starred: [],
  unread_own: [],
});

/**
 * For a full export with consent: the private channels and direct
 * conversations of those who set `allow_private_data_export`, each read
 * as one of them (the first consenting member found).
 */
export async function consentedSources(
  actors: ActorClient,
  realm: string,
  users: UserProfile[],
  directory: ChannelEntry[],
): Promise<Source[]> {
  const privateIds = new Set(directory.filter((c) => c.invite_only).map((c) => c.channel_id));
  const sources = new Map<string, Source>();
  for (const user of users.filter((u) => u.is_active && !u.is_bot)) {
    const settings = await actors.ask(userAddress(realm, user.user_id), { type: 'user.settings' });
    if (settings.allow_private_data_export !== true) continue;
    const state = await actors.ask(userAddress(realm, user.user_id), { type: 'user.state' });
    const viewer = viewerOf(user.user_id, user.role);
    for (const id of Object.keys(state.subscriptions).map(Number)) {
      const address = channelAddress(realm, id);
      if (privateIds.has(id) && !sources.has(address.key)) sources.set(address.key, { address, stream_id: id, viewer });
    }
    for (const conversation of state.conversations) {
      if (sources.has(conversation.key) || conversation.max_message_id === 0) continue;
      sources.set(conversation.key, { address: conversationOfKey(conversation.key), stream_id: null, viewer });
    }
  }
  return [...sources.values()];
}

async function* entries(
  actors: ActorClient,
  actor: Principal,
  exportType: number,
  dir: string,
  log: Logger,
): AsyncGenerator<TarEntry> {
  const realm = realmAddress(actor.realm);
  const [info, users, directory] = await Promise.all([
    actors.ask(realm, { type: 'realm.info' }),
    actors.ask(realm, { type: 'realm.listUsers' }),
    actors.ask(realm, { type: 'realm.channels' }),
  ]);
  const consented =
    exportType === EXPORT_FULL_WITH_CONSENT ? await consentedSources(actors, actor.realm, users, directory) : [];
  const exported = new Set(consented.flatMap((s) => (s.stream_id === null ? [] : [s.stream_id])));
  const channels = directory.filter((c: ChannelEntry) => !c.invite_only || exported.has(c.channel_id));
  const subscriptions: Array<{ user_id: number; stream_id: number }> = [];
  const streams = [];
  for (const entry of channels) {
    const channel = await actors.ask(channelAddress(actor.realm, entry.channel_id), { type: 'channel.info' });
    streams.push({
      id: entry.channel_id,
      name: channel.name,
      description: channel.description,
      invite_only: entry.invite_only,
      is_web_public: entry.is_web_public,
      deactivated: entry.is_archived,
      history_public_to_subscribers: channel.history_public_to_subscribers,
    });
    for (const user_id of channel.subscribers) subscriptions.push({ user_id, stream_id: entry.channel_id });
  }
  yield json(`${dir}/realm.json`, {
    zerver_realm: [info],
    zerver_userprofile: users.map((u) => ({
      id: u.user_id,
      email: u.email,
      full_name: u.full_name,
      role: u.role,
      is_active: u.is_active,
      is_bot: u.is_bot,
      bot_type: u.bot_type,
      bot_owner_id: u.bot_owner_id,
      date_joined: u.date_joined,
      timezone: u.timezone,
    })),
    zerver_stream: streams,
    zerver_subscription: subscriptions,
  });
  const sources: Source[] = [
    ...channels
      .filter((c) => !c.invite_only)
      .map((c) => ({
        address: channelAddress(actor.realm, c.channel_id),
        stream_id: c.channel_id,
        viewer: viewerOf(actor.user_id, actor.role, actor.groups),
      })),
    ...consented,
  ];
  let file = 0;
  let batch: unknown[] = [];
  let total = 0;
  const flush = () => {
    file += 1;
    const entry = json(`${dir}/messages-${String(file).padStart(6, '0')}.json`, { zerver_message: batch });
    batch = [];
    return entry;
  };
  for (const source of sources) {
    let anchor = 0;
    let first = true;
    for (;;) {
      const page = await actors.ask(source.address, {
        type: 'message.fetch',
        viewer: source.viewer,
        narrow: [],
        anchor,
        num_before: 0,
        num_after: PAGE,
        include_anchor: first,
      });
      for (const m of page.messages as ViewedMessage[]) {
        batch.push({
          id: m.id,
          stream_id: source.stream_id,
          ...(source.stream_id === null && { recipient_user_ids: m.dm_user_ids }),
          sender_id: m.sender_id,
          topic: m.topic,
          content: m.content,
          rendered_content: m.rendered,
          date_sent: m.timestamp,
          last_edit_time: m.last_edit_timestamp,
          reactions: m.reactions,
        });
        if (batch.length >= PAGE) yield flush();
      }
      total += page.messages.length;
      if (page.found_newest || page.messages.length === 0) break;
      anchor = page.messages.at(-1)!.id;
      first = false;
    }
    log.info({ conversation: source.address.key, messages: total }, 'export: conversation done');
  }
  if (batch.length > 0 || file === 0) yield flush();
  yield {
    name: `${dir}/export.log`,
    data: Buffer.from(
      `${users.length} users, ${channels.length} channels, ${consented.length} private conversations, ${total} messages\n`,
    ),
  };
}

/**
 * Writes one export through the file port and tells the realm how it went.
 * Runs after the request that asked for it has been answered.
 */
export async function runExport(
  actors: ActorClient,
  options: ApiOptions,
  actor: Principal,
  id: number,
  exportType: number,
  log: Logger,
): Promise<void> {
  const secret = randomBytes(16).toString('hex');
  const dir = `zulip-export-${actor.realm}-${id}`;
  const name = `${dir}.tar.gz`;
  let url: string | null = null;
  try {
    const body = tarGz(entries(actors, actor, exportType, dir, log), Math.floor(Date.now() / 1000));
    await options.files.put(exportKey(actor.realm, secret, name), body, 'application/gzip');
    url = exportUrl(options, actor.realm, secret, name);
  } catch (err) {
    log.error({ err, export: id }, 'export failed');
  }
  await actors.ask(realmAddress(actor.realm), { type: 'realm.exportDone', id, url });
}
