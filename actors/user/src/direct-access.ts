import {
  ChatError,
  channelAddress,
  realmOfKey,
  userOfKey,
  type QueueEvent,
  type RealmUserRemoveEvent,
  type UserCommand,
} from '@chat/protocol';
import type { ActorContext, Decision } from '@chat/runtime';
import { toOwnQueues } from './queues.js';
import type { UserEvent, UserState } from './state.js';

type Ctx = ActorContext<UserState>;

/**
 * A direct-message conversation the user takes part in, recorded. A
 * restricted guest's record carries the `realm_user` adds of its other
 * people (`access`, the edge's `directAccessAdds`): when the conversation is
 * new to him, those he may not yet access go to his queues in the same change
 * as the record, so they come once (a second message finds the conversation
 * recorded, also one sent at the same moment), are never lost to a crash
 * between the two, and come before the message (the conversation's next
 * fanout). Their origin is this change, which a register's `user.state` read
 * covers. Only channels are asked, which never wait on a UserActor.
 */
export async function decideConversation(
  ctx: Ctx,
  command: Extract<UserCommand, { type: 'user.conversation' }>,
): Promise<Decision<UserEvent, null>> {
  const { key, user_ids: userIds, message_id: messageId, access = [] } = command;
  const events: UserEvent[] = [{ type: 'conversationSeen', key, userIds, messageId }];
  if (access.length === 0 || ctx.state.conversations[key]) return { events };
  const known = await accessible(ctx);
  const adds = access.filter((e) => !known.has(e.person.user_id));
  return { events, tells: adds.length > 0 ? toOwnQueues(ctx.address.key, ctx.state, adds) : [] };
}

/**
 * Whom the user may access apart from bots: his conversations' people and the subscribers of the channels
 * that list him (`accessFrom`). A channel of his list that answers it does not exist (deleted, or not yet
 * made) shares no one: the record and its adds go on without it.
 */
async function accessible(ctx: Ctx): Promise<Set<number>> {
  const me = userOfKey(ctx.address.key);
  const realm = realmOfKey(ctx.address.key);
  const ids = new Set([me]);
  for (const c of Object.values(ctx.state.conversations)) for (const id of c.user_ids) ids.add(id);
  const infos = await Promise.all(
    Object.keys(ctx.state.subscriptions).map((id) =>
      ctx.actors.ask(channelAddress(realm, Number(id)), { type: 'channel.info' }).catch(notShared),
    ),
  );
  for (const info of infos) if (info?.subscribers.includes(me)) for (const id of info.subscribers) ids.add(id);
  return ids;
}

/** A channel's "Invalid channel ID" (BAD_REQUEST, the only refusal of a `channel.info` without viewer) as none. */
function notShared(err: unknown): undefined {
  if (err instanceof ChatError && err.code === 'BAD_REQUEST') return undefined;
  throw err;
}

/**
 * A delivery's `realm_user` removes for a change of access (a channel's subscribers, a deactivation:
 * `api/src/users/access-events.ts`), less those of people the user has a conversation with, whom he
 * accesses whatever the channels: the edge judged them from a read of his conversations made before one
 * was recorded (someone leaving his channel as he sends him a first direct message). Adds need no such
 * care: a queue passes one add per person (`actors/queue/src/access.ts`).
 */
export function withoutPartnerRemoves(state: UserState, events: QueueEvent[]): QueueEvent[] {
  const isRemove = (e: QueueEvent): e is RealmUserRemoveEvent => e.type === 'realm_user' && e.op === 'remove';
  if (!events.some(isRemove)) return events;
  const partners = new Set(Object.values(state.conversations).flatMap((c) => c.user_ids));
  return events.filter((e) => !isRemove(e) || !partners.has(e.person.user_id));
}
