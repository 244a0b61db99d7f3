import type { AuthRequest } from '@chat/edge';
import { channelAddress, realmAddress, type AcceptedInvite, type UserRef } from '@chat/protocol';
import type { ActorClient } from '@chat/runtime';
import { CallerContext } from '../context.js';
import type { ApiOptions } from '../options.js';

type Logger = AuthRequest['log'];
import { sendMessage } from '../messages/send.js';
import { accessAddsFirst, restrictsGuests, tellAccessChanges } from '../users/access-events.js';

/**
 * What follows the creation of an invited account (its groups are joined
 * with it, by the RealmActor): its channels and the notices. The account exists already, so a step that fails (a
 * channel archived since the invitation) is logged and skipped rather than
 * undoing the join.
 */
export async function onboard(
  actors: ActorClient,
  realm: string,
  accepted: AcceptedInvite,
  options: ApiOptions,
  log: Logger,
): Promise<void> {
  const user = accepted.user;
  const ref: UserRef = {
    user_id: user.user_id,
    email: user.email,
    full_name: user.full_name,
    role: user.role,
    is_bot: false,
    is_active: true,
    bot_owner_id: null,
  };
  const settings = await actors.ask(realmAddress(realm), { type: 'realm.settings' });
  for (const id of accepted.stream_ids) {
    // Restricted guests among its subscribers gain access to the new user, as when subscribing:
    // the add goes with the peer_add, ahead of it (accessAddsFirst), the rest after.
    const first = await accessAddsFirst(actors, realm, id, [user.user_id]);
    // No acting user: the inviter's permission was checked when the invitation was made.
    const joined = await actors
      .ask(channelAddress(realm, id), {
        type: 'channel.subscribe',
        actor: null,
        users: [ref],
        settings,
        ...(first.size > 0 ? { first: [...first].map(([user_id, events]) => ({ user_id, events })) } : {}),
      })
      .then(() => true)
      .catch((err: unknown) => log.warn({ err, channel: id }, 'invited user not subscribed'));
    if (joined === true && (await restrictsGuests(actors, realm))) {
      const { subscribers } = await actors.ask(channelAddress(realm, id), { type: 'channel.info' });
      const before = subscribers.filter((s) => s !== user.user_id);
      await tellAccessChanges(actors, realm, id, before, subscribers, first);
    }
  }
  const bot = await actors.ask(realmAddress(realm), { type: 'realm.notificationBot' });
  const botCaller = new CallerContext(actors, bot);
  const notice = (to: number, content: string) =>
    sendMessage(botCaller, { type: 'private', to: [to], content }, options, 'Internal').catch((err: unknown) =>
      log.warn({ err, to }, 'join notice not sent'),
    );
  if (accepted.notify_referrer_on_join) {
    await notice(
      accepted.referrer_id,
      `@_**${user.full_name}|${user.user_id}** accepted your invitation to join Zulip!`,
    );
  }
  // There is no Welcome Bot here: the inviting administrator's custom text comes from the notification bot.
  if (accepted.welcome_message_custom_text) await notice(user.user_id, accepted.welcome_message_custom_text);
}
