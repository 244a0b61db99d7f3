import { topicUrl } from '@chat/markdown';
import {
  ChatError,
  channelAddress,
  ERROR_CODES,
  isChatError,
  isGuest,
  type ChannelInfo,
  type EditPropagation,
  type MoveBegun,
  type MoveImported,
  conversationOfKey,
} from '@chat/protocol';
import { CallerContext } from '../context.js';
import type { Located } from './fetch.js';
import type { ApiOptions } from '../options.js';
import { sendMessage } from './send.js';

export interface MoveRequest {
  stream_id: number;
  /** Absent: the messages keep their topic. */
  topic?: string;
  propagate_mode: EditPropagation;
  notify_old: boolean;
  notify_new: boolean;
}

/**
 * Moves a message (and with `change_later`/`change_all` its topic's other
 * messages) to another channel. Three asks, in an order that never loses a
 * message: the source records the move, the target imports the messages
 * under an idempotency key, then the source lets them go. A refusal by the
 * target drops the move; a timeout leaves it to the source to finish.
 */
export async function moveToChannel(caller: CallerContext, options: ApiOptions, located: Located, req: MoveRequest) {
  const { key, message } = located;
  if (message.channel_id === null) throw new ChatError('BAD_REQUEST', 'Direct messages cannot be moved to channels.');
  const [target, source] = await Promise.all([
    caller.channelInfo(req.stream_id),
    caller.channelInfo(message.channel_id),
  ]);
  // Who loses access depends on roles, which the channels do not know.
  const people = await caller.users([...source.subscribers, ...target.subscribers]);
  const guests = [...people.values()].filter(isGuest).map((u) => u.user_id);
  const from = conversationOfKey(key);
  const begun = await caller.actors.ask(from, {
    type: 'message.moveOut',
    actor: caller.principal,
    message_id: message.id,
    target,
    ...(req.topic !== undefined ? { topic: req.topic } : {}),
    propagate_mode: req.propagate_mode,
    settings: await caller.settings(),
    guest_ids: guests,
  });
  const to = channelAddress(caller.principal.realm, target.stream_id);
  let imported: MoveImported;
  try {
    imported = await caller.actors.ask(
      to,
      { type: 'message.moveIn', move: begun.move },
      { idempotencyKey: `move:${begun.move.id}` },
    );
  } catch (err) {
    // A refusal is final and the messages stay; after a timeout the import may have happened, so the source finishes.
    if (isChatError(err) && !ERROR_CODES[err.code].retriable) {
      await caller.actors.ask(from, { type: 'message.moveEnd', move_id: begun.move.id, done: false });
    }
    throw err;
  }
  await caller.actors.ask(from, { type: 'message.moveEnd', move_id: begun.move.id, done: true });
  await postNotices(caller, options, { source, target, begun, imported, messageId: message.id }, req);
}

interface Moved {
  source: ChannelInfo;
  target: ChannelInfo;
  begun: MoveBegun;
  imported: MoveImported;
  messageId: number;
}

/** The notification bot's notices, in the original's wording: new location first, then the old one. */
async function postNotices(caller: CallerContext, options: ApiOptions, moved: Moved, req: MoveRequest) {
  if (!req.notify_new && !req.notify_old) return;
  const { source, target, begun } = moved;
  const bot = await caller.actors.ask(caller.realm, { type: 'realm.notificationBot' });
  const botCaller = new CallerContext(caller.actors, bot);
  const post = (channel: ChannelInfo, topic: string, content: string) =>
    sendMessage(botCaller, { type: 'stream', to: channel.stream_id, topic, content }, options, 'Internal', true);
  const who = `@_**${caller.principal.full_name}|${caller.principal.user_id}**`;
  const oldPlace = `#**${source.name}>${begun.old_topic}**`;
  const newPlace = `#**${target.name}>${begun.new_topic}**`;
  const count = begun.move.messages.length;
  if (req.notify_new) {
    const link = `${options.externalUrl}${topicUrl(target.stream_id, target.name, begun.new_topic)}/near/${moved.messageId}`;
    const text =
      !moved.imported.preexisting && begun.moved_all_visible
        ? `This topic was moved here from ${oldPlace} by ${who}.`
        : count === 1
          ? `[A message](${link}) was moved here from ${oldPlace} by ${who}.`
          : `${count} messages were moved here from ${oldPlace} by ${who}.`;
    await post(target, begun.new_topic, text);
  }
  if (req.notify_old) {
    const text = begun.moved_all_visible
      ? `This topic was moved to ${newPlace} by ${who}.`
      : count === 1
        ? `A message was moved from this topic to ${newPlace} by ${who}.`
        : `${count} messages were moved from this topic to ${newPlace} by ${who}.`;
    await post(source, begun.old_topic, text);
  }
}
