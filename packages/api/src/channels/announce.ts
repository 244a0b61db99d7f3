import type { Principal } from '@chat/protocol';
import { CallerContext } from '../context.js';
import { sendMessage } from '../messages/send.js';
import type { ApiOptions } from '../options.js';

/**
 * `announce`: the notification bot tells the realm's new-channel announcements
 * channel (when it has one) who created which channels, in the original's words.
 */
export async function announceChannels(caller: CallerContext, created: string[], options: ApiOptions): Promise<void> {
  if (created.length === 0) return;
  const { principal, actors } = caller;
  const { settings } = await actors.ask(caller.realm, { type: 'realm.organization' });
  const to = settings.new_stream_announcements_stream_id;
  if (typeof to !== 'number' || to < 0) return;
  const who = `@_**${principal.full_name}|${principal.user_id}**`;
  const links = created.map((name) => `#**${name}**`).join(', ');
  const content =
    created.length > 1 ? `${who} created the following channels: ${links}.` : `${who} created a new channel ${links}.`;
  const bot = await actors.ask(caller.realm, { type: 'realm.notificationBot' });
  const request = { type: 'stream', to, topic: 'new channels', content };
  await sendMessage(new CallerContext(actors, bot), request, options, 'Internal', true);
}

/** The original's `max_bulk_new_subscription_messages`: more new subscribers than this get no DM. */
export const MAX_BULK_NEW_SUBSCRIPTION_MESSAGES = 100;

/**
 * `send_new_subscription_messages`: the notification bot tells each person
 * someone else subscribed (bots aside) which existing channels they are now
 * in, as the original words it; channels the request created are left out.
 * Replies whether the messages went, false when too many were subscribed.
 */
export async function tellNewSubscribers(
  caller: CallerContext,
  subscribed: Record<string, string[]>,
  created: string[],
  bots: Set<number>,
  options: ApiOptions,
): Promise<boolean> {
  if (Object.keys(subscribed).length > MAX_BULK_NEW_SUBSCRIPTION_MESSAGES) return false;
  const { principal, actors } = caller;
  const who = `@**${principal.full_name}|${principal.user_id}**`;
  let bot: Principal | undefined;
  for (const [key, names] of Object.entries(subscribed)) {
    const userId = Number(key);
    if (userId === principal.user_id || bots.has(userId)) continue;
    const notify = names.filter((name) => !created.includes(name)).sort();
    if (notify.length === 0) continue;
    const content =
      notify.length === 1
        ? `${who} subscribed you to the channel #**${notify[0]}**.`
        : `${who} subscribed you to the following channels:\n\n${notify.map((n) => `* #**${n}**`).join('\n')}`;
    bot ??= await actors.ask(caller.realm, { type: 'realm.notificationBot' });
    await sendMessage(
      new CallerContext(actors, bot),
      { type: 'private', to: [userId], content },
      options,
      'Internal',
      true,
    );
  }
  return true;
}
