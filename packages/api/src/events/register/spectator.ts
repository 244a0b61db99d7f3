import type { ActorClient } from '@chat/runtime';
import {
  ChatError,
  channelAddress,
  newSubscription,
  type ActorAddress,
  type ChannelInfo,
  type UserProfile,
} from '@chat/protocol';
import { subscriptionJson } from '../../channels/json.js';
import type { ApiOptions } from '../../options.js';
import { FEATURE_LEVEL, ZULIP_VERSION } from '../../options.js';
import { renderUser } from '../../users/json.js';
import { realmSection } from './realm-section.js';

export interface SpectatorRequest {
  fetch: Set<string> | null;
  client_gravatar?: boolean;
  include_subscribers?: boolean | 'partial';
}

const anonymous = (name: string) => new ChatError('BAD_REQUEST', `Invalid '${name}' parameter for anonymous request`);

/**
 * Registration without credentials, for organizations with public access: a
 * snapshot of the web-public channels and no event queue (`queue_id` null),
 * as the original gives spectators.
 */
export async function spectatorRegister(
  actors: ActorClient,
  realm: ActorAddress<'realm'>,
  req: SpectatorRequest,
  options: ApiOptions,
): Promise<Record<string, unknown>> {
  const [info, org] = await Promise.all([
    actors.ask(realm, { type: 'realm.info' }),
    actors.ask(realm, { type: 'realm.organization' }),
  ]);
  if (!info.web_public_access_enabled || !org.settings.enable_spectator_access) {
    throw new ChatError('UNAUTHORIZED', 'Not logged in: API authentication or user session required');
  }
  if (req.client_gravatar === true) throw anonymous('client_gravatar');
  if (req.include_subscribers === true) throw anonymous('include_subscribers');
  const wants = (section: string) => req.fetch === null || req.fetch.has(section);
  const body: Record<string, unknown> = {
    queue_id: null,
    last_event_id: -1,
    zulip_version: ZULIP_VERSION,
    zulip_feature_level: FEATURE_LEVEL,
    zulip_merge_base: ZULIP_VERSION,
  };
  if (wants('realm')) Object.assign(body, realmSection(org, info, options));
  const channels = await webPublicChannels(actors, realm, info.string_id);
  if (wants('subscription')) {
    const settingsOfViewer = newSubscription('#c2c2c2');
    body.subscriptions = channels.map((c) => subscriptionJson(c, settingsOfViewer, false));
    body.unsubscribed = [];
    body.never_subscribed = [];
  }
  if (wants('realm_user')) {
    const users = await actors.ask(realm, { type: 'realm.listUsers' });
    // Spectators never see an address meant for delivery.
    const render = (u: UserProfile) => renderUser(u, null, false);
    body.realm_users = users.filter((u) => u.is_active).map(render);
    body.realm_non_active_users = [];
  }
  if (wants('message')) body.max_message_id = Math.max(-1, ...channels.map((c) => c.last_message_id ?? -1));
  if (wants('user_topic')) body.user_topics = [];
  if (wants('recent_private_conversations')) body.recent_private_conversations = [];
  return body;
}

async function webPublicChannels(
  actors: ActorClient,
  realm: ActorAddress<'realm'>,
  realmId: string,
): Promise<ChannelInfo[]> {
  const entries = await actors.ask(realm, { type: 'realm.channels' });
  const open = entries.filter((c) => c.is_web_public && !c.is_archived);
  return Promise.all(open.map((c) => actors.ask(channelAddress(realmId, c.channel_id), { type: 'channel.info' })));
}
