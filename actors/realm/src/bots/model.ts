import {
  isAdministrator,
  owingRealmKey,
  uploadedAvatarUrl,
  type BotJson,
  type BotService,
  type OwedWebhook,
} from '@chat/protocol';
import type { StoreWrite } from '@chat/runtime';
import type { Account, RealmState } from '../state.js';

/** What an account that is a bot keeps besides the account itself. */
export interface BotConfig {
  defaultSendingStreamId: number | null;
  defaultEventsRegisterStreamId: number | null;
  defaultAllPublicStreams: boolean;
  /** Outgoing webhook bots: one service. */
  services: BotService[];
}

export const NO_CONFIG: BotConfig = {
  defaultSendingStreamId: null,
  defaultEventsRegisterStreamId: null,
  defaultAllPublicStreams: false,
  services: [],
};

export type BotEvent = {
  type: 'botUpdated';
  userId: number;
  fullName?: string;
  role?: Account['role'];
  botOwnerId?: number;
  bot?: Partial<BotConfig>;
};

export type WebhookEvent =
  { type: 'webhooksOwed'; owed: OwedWebhook[] } | { type: 'webhookDone'; messageId: number; botId: number };

const owedKey = (messageId: number, botId: number) => `${messageId}:${botId}`;

export function applyWebhookEvent(state: RealmState, event: WebhookEvent): void {
  const owed = (state.owedWebhooks ??= {});
  if (event.type === 'webhookDone') delete owed[owedKey(event.messageId, event.botId)];
  else for (const o of event.owed) owed[owedKey(o.message_id, o.bot_id)] = o;
}

/** The realm's row in the index of realms owing calls: there while any call is owed. */
export function owingRows(state: RealmState, event: { type: string }): StoreWrite[] {
  if (event.type !== 'webhooksOwed' && event.type !== 'webhookDone') return [];
  const key = owingRealmKey(state.stringId);
  return Object.keys(state.owedWebhooks ?? {}).length > 0
    ? [{ ...key, op: 'put', value: new Uint8Array() }]
    : [{ ...key, op: 'del' }];
}

export function applyBotEvent(state: RealmState, event: BotEvent): void {
  const account = state.accounts[event.userId];
  if (!account) return;
  if (event.fullName !== undefined) account.fullName = event.fullName;
  if (event.role !== undefined) account.role = event.role;
  if (event.botOwnerId !== undefined) account.botOwnerId = event.botOwnerId;
  if (event.bot) account.bot = { ...(account.bot ?? NO_CONFIG), ...event.bot };
}

const channelName = (state: RealmState, id: number | null) => (id === null ? null : (state.channels[id]?.name ?? null));

/** A bot as `realm_bots` and `realm_bot` events show it. */
export function botJson(state: RealmState, account: Account): BotJson {
  const config = account.bot ?? NO_CONFIG;
  return {
    email: account.email,
    user_id: account.id,
    full_name: account.fullName,
    bot_type: account.botType ?? 1,
    is_active: account.isActive,
    api_key: account.apiKey,
    default_sending_stream: channelName(state, config.defaultSendingStreamId),
    default_events_register_stream: channelName(state, config.defaultEventsRegisterStreamId),
    default_all_public_streams: config.defaultAllPublicStreams,
    owner_id: account.botOwnerId,
    services: config.services.map((s) => ({ ...s })),
    avatar_version: account.avatarVersion,
    ...(account.avatarFile ? { avatar_url: uploadedAvatarUrl(account.avatarFile, account.avatarVersion) } : {}),
  };
}

/** The realm's own bots (the notification bot) are nobody's to administer, as the original's system bots. */
export const isRealmBot = (state: RealmState, account: Account) =>
  account.botType !== null && account.id !== state.notificationBotId;

/** Whether `who` may administer the bot: its owner, or an administrator (the original's `can_admin_user`). */
export const administers = (who: Account, bot: Account) => bot.botOwnerId === who.id || isAdministrator(who);

/**
 * Who hears a bot's `realm_bot` events (the original's `bot_owner_user_ids`):
 * its owner alone when a default channel is private, else the owner and the
 * human administrators.
 */
export function botAudience(state: RealmState, bot: Account): number[] {
  const config = bot.bot ?? NO_CONFIG;
  const defaults = [config.defaultSendingStreamId, config.defaultEventsRegisterStreamId];
  const owner = bot.botOwnerId === null ? [] : [bot.botOwnerId];
  if (defaults.some((id) => id !== null && state.channels[id]?.invite_only)) return owner;
  const admins = Object.values(state.accounts)
    .filter((a) => a.isActive && a.botType === null && isAdministrator(a))
    .map((a) => a.id);
  return [...new Set([...admins, ...owner])];
}
