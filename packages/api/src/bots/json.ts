import type { BotAddEvent, BotJson } from '@chat/protocol';
import { gravatarUrl } from '../users/json.js';

/** A bot as `realm_bots` and `realm_bot` add show it: its avatar, and no avatar version. */
export function presentBot(bot: BotJson) {
  const { avatar_version, avatar_url, ...rest } = bot;
  return { ...rest, avatar_url: avatar_url ?? gravatarUrl(bot.email, avatar_version) };
}

/** `realm_bot` op `add` as queues see it. */
export function presentBotEvent(event: BotAddEvent & { id: number }): Record<string, unknown> {
  return { ...event, bot: presentBot(event.bot) };
}
