import test from 'ava';
import { ChatError, type ActorAddress, type Command, type RealmUserAddEvent } from '@chat/protocol';
import { BehaviorTestKit } from '@chat/runtime/testkit';
import { userBehavior, userBehaviorWith } from '../src/index.js';

// Polonius (id 5) is a restricted guest in channel 7 with Hamlet (10); Cordelia (11) shares nothing with him.
const GUEST = 'zulip:5';
const add = (user_id: number) =>
  ({
    type: 'realm_user',
    op: 'add',
    person: { user_id, full_name: `user ${user_id}` },
    access: true,
  }) as unknown as RealmUserAddEvent;

const channels = (to: ActorAddress, body: Command) => {
  if (to.type === 'channel' && body.type === 'channel.info') return { subscribers: [5, 10] };
  throw new Error(`unexpected ask ${body.type}`);
};

async function guestKit() {
  const k = new BehaviorTestKit(userBehavior, { key: GUEST, answer: channels });
  await k.run({ type: 'user.addQueue', queue_id: 'q1' });
  k.given([{ type: 'subscribed', channelKey: 'zulip:7', channelId: 7, color: '#76ce90', lastMessageId: 0 }]);
  return k;
}

const told = (result: { tells: Array<{ body: unknown }> }) =>
  result.tells.flatMap((tell) => (tell.body as { events: unknown[] }).events);

const first = (key: string, user_ids: number[], message_id: number, access = [add(10), add(11)]) =>
  ({ type: 'user.conversation', key, user_ids, message_id, access }) as const;

test('a restricted guest’s new conversation tells his queues the adds of those he may not access, in the record’s change', async (t) => {
  const k = await guestKit();
  const result = await k.run(first('zulip:dm:5,10,11', [5, 10, 11], 40));
  // Hamlet he has through channel 7: only Cordelia's add, in the change that records the conversation.
  t.deepEqual(told(result), [add(11)]);
  t.like(result.events[0], { type: 'conversationSeen', key: 'zulip:dm:5,10,11', messageId: 40 });
  t.deepEqual(k.replay(), k.state);
});

test('a second message of the conversation, also one sent at the same moment, tells no add again', async (t) => {
  const k = await guestKit();
  const key = 'zulip:dm:5,11';
  t.deepEqual(told(await k.run(first(key, [5, 11], 41, [add(11)]))), [add(11)]);
  // Both sends computed the adds before either was recorded; the conversation, recorded by the first, says no.
  t.deepEqual(told(await k.run(first(key, [5, 11], 42, [add(11)]))), []);
  // Another conversation with her: she is his through the first.
  t.deepEqual(told(await k.run(first('zulip:dm:5,10,11', [5, 10, 11], 43, [add(10), add(11)]))), []);
});

test('a due direct message to a guest whose send went unanswered carries his adds again; recorded once, he tells them once', async (t) => {
  // Cordelia's timer: the first send is lost (a crash before the answer), the next round sends it again.
  const sends: Array<{ access?: Array<{ user_id: number; events: RealmUserAddEvent[] }> }> = [];
  const owed = [{ user_id: 5, events: [add(11)] }];
  const due = Date.UTC(2026, 0, 2);
  const author = new BehaviorTestKit(
    userBehaviorWith(async () => owed),
    {
      key: 'zulip:11',
      now: due - 1000,
      answer: (_to, body) => {
        if (body.type !== 'message.send') throw new Error(`unexpected ask ${body.type}`);
        sends.push(body as (typeof sends)[number]);
        if (sends.length === 1) throw new Error('no answer');
        return { id: 44, new_topic: false };
      },
    },
  );
  const command = { type: 'message.send', sender: { user_id: 11 }, people: [], read_by_sender: true };
  author.given([
    {
      type: 'scheduledAdded',
      item: {
        id: 1,
        kind: 'message',
        failed: false,
        request: { type: 'direct', to: [5], content: 'later' },
        rendered_content: '<p>later</p>',
        scheduled_delivery_timestamp: due / 1000,
        send: { key: 'zulip:dm:5,11', command },
      },
    },
  ]);
  author.activate();
  await author.advance(1000);
  await author.advance(1000);
  t.is(sends.length, 2);
  for (const send of sends) t.deepEqual(send.access, owed);
  // The guest's actor: the conversation's record and his add are one change; after a restart from it, the
  // repeated record (the conversation sending again what it owed) tells nothing.
  const guest = await guestKit();
  const recorded = await guest.run(first('zulip:dm:5,11', [5, 11], 44, sends[0]!.access![0]!.events));
  t.deepEqual(told(recorded), [add(11)]);
  const restarted = await guestKit();
  restarted.given(recorded.events);
  t.deepEqual(told(await restarted.run(first('zulip:dm:5,11', [5, 11], 44, sends[1]!.access![0]!.events))), []);
});

const deliver = (...events: unknown[]) => ({ type: 'user.deliver', events }) as unknown as Command;
const remove = (user_id: number) => ({
  type: 'realm_user',
  op: 'remove',
  person: { user_id, full_name: 'Unknown user' },
});

test('a remove of someone he has a conversation with is dropped: the conversation gives access whatever the channels', async (t) => {
  const k = await guestKit();
  await k.run(first('zulip:dm:5,10', [5, 10], 42, [add(10)]));
  // Hamlet left channel 7 as he sent his first message: the edge judged the remove before the record.
  t.deepEqual(told(await k.run(deliver(remove(10), remove(12)))), [remove(12)]);
});

test('a channel of his that answers it does not exist shares no one: the record and its adds go on', async (t) => {
  // Channel 8 is on his list but its actor says "Invalid channel ID" (deleted, or not yet made).
  const k = new BehaviorTestKit(userBehavior, {
    key: GUEST,
    answer: (to, body) => {
      if (to.type === 'channel' && to.key === 'zulip:8') throw new ChatError('BAD_REQUEST', 'Invalid channel ID');
      return channels(to, body);
    },
  });
  await k.run({ type: 'user.addQueue', queue_id: 'q1' });
  k.given([
    { type: 'subscribed', channelKey: 'zulip:7', channelId: 7, color: '#76ce90', lastMessageId: 0 },
    { type: 'subscribed', channelKey: 'zulip:8', channelId: 8, color: '#fae589', lastMessageId: 0 },
  ]);
  const result = await k.run(first('zulip:dm:5,10,11', [5, 10, 11], 40));
  t.deepEqual(told(result), [add(11)]);
  t.like(result.events[0], { type: 'conversationSeen', key: 'zulip:dm:5,10,11', messageId: 40 });
});
