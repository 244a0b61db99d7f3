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
