import { channelAddress, type Principal } from '@chat/protocol';
import { CallerContext } from '../context.js';
import { sendMessage } from '../messages/send.js';
import type { ApiOptions } from '../options.js';
import { historyPublic, type NewChannelSpec } from './create.js';

/** A channel one request created. */
export interface NewChannel {
  id: number;
  spec: NewChannelSpec;
  subscribers: number[];
}

/** The original's Realm.STREAM_EVENTS_NOTIFICATION_TOPIC_NAME. */
export const CHANNEL_EVENTS_TOPIC = 'channel events';

/** The words the original opens a new channel's notice with, by its permission policy. */
function policyWords(spec: NewChannelSpec): string {
  if (spec.is_web_public) return '**Web-public**';
  if (!spec.invite_only) return '**Public**';
  return historyPublic(spec) ? '**Private, shared history**' : '**Private, protected history**';
}

/**
 * Sends to a channel as the notification bot; when the one whose request caused it
 * is subscribed, the message arrives read for them, as the original's `mark_as_read`.
 */
async function notify(
  caller: CallerContext,
  bot: Principal,
  channelId: number,
  topic: string,
  content: string,
  options: ApiOptions,
  subscribed: boolean,
) {
  const request = { type: 'stream', to: channelId, topic, content };
  const markRead = subscribed ? [caller.principal.user_id] : [];
  const { id } = await sendMessage(new CallerContext(caller.actors, bot), request, options, 'Internal', true, markRead);
  if (!subscribed) return;
  // The message event says so too; this mark, without an event, makes it read before the request answers.
  const key = channelAddress(caller.principal.realm, channelId).key;
  await caller.actors.ask(caller.me, { type: 'user.historical', key, message_id: id });
}

/**
 * The notification bot's first message in each channel a request created,
 * in its "channel events" topic, in the original's words: who created it,
 * its kind (web-public, public, private with shared or protected history)
 * and its description.
 */
export async function noteNewChannels(
  caller: CallerContext,
  created: NewChannel[],
  options: ApiOptions,
): Promise<void> {
  if (created.length === 0) return;
  const bot = await caller.actors.ask(caller.realm, { type: 'realm.notificationBot' });
  const who = `@_**${caller.principal.full_name}|${caller.principal.user_id}**`;
  for (const { id, spec, subscribers } of created) {
    const description = spec.description === '' ? '*No description.*' : spec.description;
    const content = `${policyWords(spec)} channel created by ${who}. **Description:**\n\`\`\`\` quote\n${description}\n\`\`\`\``;
    // A channel of the general chat only takes it there (the original's channel_events_topic_name).
    const topic = spec.topics_policy === 'empty_topic_only' ? '' : CHANNEL_EVENTS_TOPIC;
    await notify(caller, bot, id, topic, content, options, subscribers.includes(caller.principal.user_id));
  }
}

/**
 * `announce`: the notification bot tells the realm's new-channel announcements
 * channel (when it has one) who created which channels, in the original's words.
 */
export async function announceChannels(caller: CallerContext, made: NewChannel[], options: ApiOptions): Promise<void> {
  if (made.length === 0) return;
  const created = made.map((c) => c.spec.name);
  const { principal, actors } = caller;
  const { settings } = await actors.ask(caller.realm, { type: 'realm.organization' });
  const to = settings.new_stream_announcements_stream_id;
  if (typeof to !== 'number' || to < 0) return;
  const who = `@_**${principal.full_name}|${principal.user_id}**`;
  const links = created.map((name) => `#**${name}**`).join(', ');
  const content =
    created.length > 1 ? `${who} created the following channels: ${links}.` : `${who} created a new channel ${links}.`;
  const bot = await actors.ask(caller.realm, { type: 'realm.notificationBot' });
  const subscribed = Boolean((await caller.state()).subscriptions[to]);
  await notify(caller, bot, to, 'new channels', content, options, subscribed);
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
