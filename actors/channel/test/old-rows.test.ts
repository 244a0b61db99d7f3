import test from 'ava';
import type { StoredMessage, Viewer } from '@chat/protocol';
import { flagsFor } from '../src/view.js';
import type { ChannelState } from '../src/state.js';
import { channel, created, person, send } from './fixtures.js';

/**
 * Historical rows made before `historical` kept them apart (commit f3e12a7):
 * a reaction by someone without the message made one, as a one-id range in
 * `held`, where leaving also keeps subscription spans.
 */
const viewer = (user_id: number): Viewer => ({ ...person(user_id), read: [], starred: [], unread_own: [] });
const author = person(2);

/** Channel 10 of 2 and 3 with one message of 2. */
async function oneMessage() {
  const kit = channel(10, created(10, [2, 3]));
  const id = ((await kit.run(send(author, 'lunch'))).reply as { id: number }).id;
  return { kit, id };
}

// A reaction as event version 2 wrote it then: the same shape as now.
const REACTION_V2 = (id: number) =>
  JSON.parse(`{
    "type": "reactionAdded", "id": ${id},
    "reaction": { "emoji_name": "smile", "emoji_code": "1f604", "reaction_type": "unicode_emoji", "user_id": 9 }
  }`);

test('a reaction journaled by event version 2 by someone without the message replays as a historical row', async (t) => {
  const { kit, id } = await oneMessage();
  kit.given([REACTION_V2(id)], 2);
  const message = kit.state.messages[0]!;
  t.deepEqual(kit.state.historical, { 9: [[id, id]] });
  t.true(flagsFor(kit.state, viewer(9), message).includes('historical'));
  t.deepEqual(kit.replay(), kit.state);
});

/** The state as a snapshot of then held it: the reaction's row in `held`, no `historical`, no `rowsApart`. */
function snapshotOfThen(state: ChannelState, id: number): ChannelState {
  const old = JSON.parse(JSON.stringify(state)) as ChannelState & { rowsApart?: true };
  delete old.rowsApart;
  delete old.historical;
  old.held = { 9: [[id, id]], 4: [[1, id]] };
  return old;
}

test("a snapshot of then reads its one-id range of a message reacted to as historical, a left subscription's span not", async (t) => {
  const { kit, id } = await oneMessage();
  kit.given([REACTION_V2(id)], 2);
  const old = snapshotOfThen(kit.state, id);
  const message: StoredMessage = old.messages[0]!;
  t.true(flagsFor(old, viewer(9), message).includes('historical'));
  // Who left keeps the message from the span of their subscription: no historical flag.
  t.false(flagsFor(old, viewer(4), message).includes('historical'));
  // A channel made since (`rowsApart`) keeps historical rows apart: a one-message span reacted to is a span.
  t.false(flagsFor({ ...old, rowsApart: true }, viewer(9), message).includes('historical'));
});
