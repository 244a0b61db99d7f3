import test from 'ava';
import type { ChannelSettings, MoveBegun, StoredMessage } from '@chat/protocol';
import { historicalRow, holdersOf } from '../src/holders.js';
import type { ChannelEvent } from '../src/index.js';
import { channel, created, info, person, realmSettings, send } from './fixtures.js';

/**
 * A move names who has each moved message (`holders`, `historical`),
 * worked out once per move: the same lists as asking message by message.
 */
const KEY = 'zulip:10';

async function template(): Promise<StoredMessage> {
  const sent = await channel(99, created(99, [2])).run(send(person(2), 'lunch'));
  return (sent.events[0] as { message: StoredMessage }).message;
}

/** Channel 10: 4 and 3 leave, 5 and 7 join, 6 and 3 have historical rows, older moves' `holders` and `granted_to`. */
async function history(changes: Partial<ChannelSettings>) {
  const base = await template();
  const at = (id: number, more: Partial<StoredMessage> = {}): StoredMessage => ({ ...base, id, ...more });
  const sent = (id: number): ChannelEvent => ({ type: 'messageSent', message: at(id) });
  const events: ChannelEvent[] = [
    created(10, [2, 3, 4], changes),
    sent(10),
    { type: 'unsubscribed', userIds: [4] },
    { type: 'subscribed', userIds: [5] },
    sent(20),
    { type: 'historicalGiven', userId: 6, ids: [10] },
    { type: 'messagesImported', messages: [at(15, { holders: [8, 2, 3, 6], historical: [6] })] },
    { type: 'subscribed', userIds: [7] },
    { type: 'messagesImported', messages: [at(18, { granted_to: [7] })] },
    sent(30),
    { type: 'unsubscribed', userIds: [3] },
    sent(40),
    { type: 'historicalGiven', userId: 3, ids: [40] },
  ];
  return channel(10, ...events);
}

const cases: Array<[string, Partial<ChannelSettings>]> = [
  ['shared history', {}],
  ['protected history', { invite_only: true, history_public_to_subscribers: false }],
];

for (const [name, changes] of cases) {
  test(`moved messages name the same holders as message by message (${name})`, async (t) => {
    const kit = await history(changes);
    const each = kit.state.messages.map((m) => [
      m.id,
      holdersOf(kit.state, KEY, m),
      holdersOf(kit.state, KEY, m).filter((id) => historicalRow(kit.state, id, m)),
    ]);
    const out = await kit.run({
      type: 'message.moveOut',
      actor: person(2),
      message_id: 10,
      target: info(11, [2, 9]),
      propagate_mode: 'change_all',
      settings: realmSettings(),
      guest_ids: [],
    });
    t.is(out.error, undefined);
    const moved = (out.reply as MoveBegun).move.messages.map((m) => [m.id, m.holders, m.historical ?? []]);
    t.deepEqual(moved, each);
    t.deepEqual(moved, [
      [10, [2, 3, 4, 6], [6]],
      [15, [2, 3, 6, 8], [6]],
      [18, [2, 3, 5, 7], []],
      [20, [2, 3, 5], []],
      [30, [2, 3, 5, 7], []],
      [40, [2, 3, 5, 7], [3]],
    ]);
  });
}
