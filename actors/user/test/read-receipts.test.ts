import test from 'ava';
import { BehaviorTestKit } from '@chat/runtime/testkit';
import { userBehavior } from '../src/index.js';

const kit = () => new BehaviorTestKit(userBehavior, { key: 'zulip:5', now: Date.UTC(2026, 0, 1) });
const key = 'zulip:channel:7';
const receipt = async (k: ReturnType<typeof kit>, message_id: number) =>
  (await k.run({ type: 'user.readReceipt', key, message_id, asker: 9 })).reply;

test('a read receipt needs the message received: not one sent before subscribing', async (t) => {
  // Subscribed when message 40 was the channel's last: 1..40 count as read (not unread) but were never received.
  const k = kit().given([{ type: 'subscribed', channelKey: key, channelId: 7, color: '#fff', lastMessageId: 40 }]);
  t.false(await receipt(k, 40));
  t.false(await receipt(k, 12));
  // Received after subscribing, then read.
  t.false(await receipt(k, 41));
  await k.run({ type: 'user.flags', op: 'add', flag: 'read', messages: [{ id: 41, key, own: false }] });
  t.true(await receipt(k, 41));
  // Marking an old one read by hand makes no row in the original (it reads as read already); starring one,
  // or marking it unread, makes a historical row: it is received from then on.
  await k.run({ type: 'user.flags', op: 'add', flag: 'read', messages: [{ id: 12, key, own: false }] });
  t.false(await receipt(k, 12));
  await k.run({ type: 'user.flags', op: 'remove', flag: 'read', messages: [{ id: 12, key, own: false }] });
  t.false(await receipt(k, 12), 'received, but unread');
  await k.run({ type: 'user.flags', op: 'add', flag: 'read', messages: [{ id: 12, key, own: false }] });
  t.true(await receipt(k, 12));
  await k.run({ type: 'user.flags', op: 'add', flag: 'starred', messages: [{ id: 30, key, own: false }] });
  t.true(await receipt(k, 30));
  t.false(await receipt(k, 31));
  t.deepEqual(k.replay(), k.state);
});

test('a read receipt counts what the conversation says the user has, and not what was moved in from elsewhere', async (t) => {
  // Resubscribed when 40 was the last: the conversation knows 12 came in an earlier subscription.
  const k = kit().given([{ type: 'subscribed', channelKey: key, channelId: 7, color: '#fff', lastMessageId: 40 }]);
  await k.run({ type: 'user.flags', op: 'add', flag: 'read', messages: [{ id: 12, key, own: false }] });
  t.false(await receipt(k, 12));
  t.true((await k.run({ type: 'user.readReceipt', key, message_id: 12, asker: 9, held: true })).reply);
  // Reacting to a message of a channel never joined: the original's historical row, read.
  const other = 'zulip:channel:8';
  await k.run({ type: 'user.historical', key: other, message_id: 70 });
  t.true((await k.run({ type: 'user.readReceipt', key: other, message_id: 70, asker: 9, held: true })).reply);
  // 50 arrives from a channel the user was not in: read, yet not received.
  await k.run({ type: 'user.moved', from: 'zulip:channel:8', to: key, ids: [50], copy: false });
  t.false(await receipt(k, 50));
  t.deepEqual(k.replay(), k.state);
});
