import { inRanges, type MovedReadCommand } from '@chat/protocol';
import type { Decision } from '@chat/runtime';
import type { UserEvent, UserState } from './state.js';

/**
 * Messages moved to another channel: read state is kept per conversation,
 * so what was read under the old key is marked read under the new one. A
 * user who did not receive them before (not subscribed to the old channel)
 * gets them read, as the original marks the rows it adds. Own messages are
 * read unless listed in `unreadOwn`, which is by id and needs nothing.
 * What the user had not received stays so under the new key; without a
 * copy (not subscribed to both) the user has none of them there, as the
 * original keeps no row for them (the channel names who does: holders.ts).
 */
export function decideMoved(state: UserState, cmd: MovedReadCommand): Decision<UserEvent, null> {
  const before = state.read[cmd.from] ?? [];
  const after = state.read[cmd.to] ?? [];
  const unseen = state.notReceived?.[cmd.from] ?? [];
  const ids = cmd.ids.filter((id) => (!cmd.copy || inRanges(before, id)) && !inRanges(after, id));
  const notReceived = cmd.copy ? cmd.ids.filter((id) => inRanges(unseen, id)) : cmd.ids;
  const events: UserEvent[] = [];
  // Raises no event to the user's queues: the update_message event carries the flags.
  const targets = ids.map((id) => ({ id, key: cmd.to, own: false }));
  if (ids.length > 0) events.push({ type: 'flagsChanged', op: 'add', flag: 'read', targets });
  if (notReceived.length > 0) events.push({ type: 'notReceived', key: cmd.to, ids: notReceived });
  return events.length > 0 ? { events } : {};
}
