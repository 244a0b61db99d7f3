import type { ActorClient } from '@chat/runtime';
import {
  ChatError,
  isOwner,
  notOwner,
  channelAddress,
  defaultChannelPermissions,
  realmAddress,
  type ChannelEntry,
  type ChannelPermissions,
  type ChannelSettings,
  type Principal,
  type TopicsPolicy,
} from '@chat/protocol';
import { renderDescription } from '../markdown.js';

export interface NewChannelSpec {
  name: string;
  description: string;
  invite_only: boolean;
  is_web_public: boolean;
  history_public_to_subscribers?: boolean;
  is_default?: boolean;
  message_retention_days?: number | null;
  topics_policy?: TopicsPolicy;
  folder_id?: number | null;
  permissions?: Partial<ChannelPermissions>;
  /** The first subscribers' color, when they asked for one. */
  color?: string;
}

/** A new channel's history is public to subscribers unless it is private and asked otherwise. */
export const historyPublic = (spec: NewChannelSpec): boolean =>
  spec.invite_only ? (spec.history_public_to_subscribers ?? false) : true;

/** Reserves the name in the realm's directory, then creates the ChannelActor with its first subscribers. */
export async function createChannel(
  actors: ActorClient,
  realm: string,
  spec: NewChannelSpec,
  creatorId: number | null,
  subscribers: number[],
  now = Date.now(),
): Promise<number> {
  const entry = await actors.ask(realmAddress(realm), {
    type: 'realm.registerChannel',
    entry: {
      name: spec.name,
      invite_only: spec.invite_only,
      is_web_public: spec.is_web_public,
      is_archived: false,
      is_default: spec.is_default ?? false,
      folder_id: spec.folder_id ?? null,
      permissions: { ...defaultChannelPermissions(creatorId), ...spec.permissions },
    },
  });
  await createChannelActor(actors, realm, entry, spec, creatorId, subscribers, now);
  return entry.channel_id;
}

/**
 * The second step of `createChannel`: the ChannelActor of a channel the
 * realm's directory holds (`entry`), with its first subscribers. Alone, it
 * finishes a creation that stopped between the two steps.
 */
export async function createChannelActor(
  actors: ActorClient,
  realm: string,
  entry: Pick<ChannelEntry, 'channel_id' | 'name'>,
  spec: NewChannelSpec,
  creatorId: number | null,
  subscribers: number[],
  now = Date.now(),
): Promise<void> {
  const channel: ChannelSettings = {
    ...defaultChannelPermissions(creatorId),
    ...spec.permissions,
    stream_id: entry.channel_id,
    name: entry.name,
    description: spec.description,
    rendered_description: renderDescription(spec.description),
    date_created: Math.floor(now / 1000),
    creator_id: creatorId,
    invite_only: spec.invite_only,
    is_web_public: spec.is_web_public,
    history_public_to_subscribers: historyPublic(spec),
    message_retention_days: spec.message_retention_days ?? null,
    is_archived: false,
    folder_id: spec.folder_id ?? null,
    topics_policy: spec.topics_policy ?? 'inherit',
  };
  await actors.ask(channelAddress(realm, entry.channel_id), {
    type: 'channel.create',
    channel,
    subscribers,
    ...(spec.color !== undefined ? { color: spec.color } : {}),
  });
}

/**
 * A channel's `message_retention_days` as the original takes it, at
 * creation or update: owners only (OrganizationOwnerRequiredError), then
 * "realm_default" (null), "unlimited" (-1) or a positive number of days.
 */
export function channelRetention(principal: Principal, raw: number | string): number | null {
  if (!isOwner(principal)) throw notOwner();
  if (raw === 'realm_default') return null;
  if (raw === 'unlimited') return -1;
  const days = typeof raw === 'number' ? raw : /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(days) || days < 1) {
    throw new ChatError('BAD_REQUEST', "Bad value for 'message_retention_days': " + raw);
  }
  return days;
}
