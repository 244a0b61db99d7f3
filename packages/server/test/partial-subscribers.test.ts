import type { ChatClient } from '@chat/testkit';
import { withServer } from './context.js';
import { newPerson } from './people.js';
import { snapshotOf, type Body } from './queues.js';

/**
 * `include_subscribers=partial` on a channel of 250 subscribers or more: in
 * place of `subscribers`, `partial_subscribers` with its bots and the users a
 * client said were active in the last 14 days (the reference's promise), in
 * the register's `subscriptions`, `unsubscribed` and `never_subscribed` and in
 * `GET /users/me/subscriptions`. Smaller channels keep their whole list
 * (register.test.ts).
 */
const FILLERS = 250;
const BIG = 'partial big';

interface World {
  channel: number;
  bot: number;
  active: number;
  idle: number;
  inactive: number;
  /** Never subscribed to the big channel. */
  newcomer: Awaited<ReturnType<typeof newPerson>>;
}

const test = withServer<'iago' | 'hamlet' | 'othello', { world: World }>(
  ['iago', 'hamlet', 'othello'],
  {},
  async (t) => {
    const { iago, hamlet, othello } = t.context;
    const fillers: number[] = [];
    const stamp = Date.now();
    // A few at a time: each account is one realm decision and a password hash.
    for (let i = 0; i < FILLERS; i += 10) {
      const made = await Promise.all(
        Array.from({ length: Math.min(10, FILLERS - i) }, (_, j) =>
          iago.post<{ user_id: number }>('/users', {
            email: `partial${i + j}-${stamp}@zulip.com`,
            password: `partial-${stamp}`,
            full_name: `Partial ${i + j}`,
          }),
        ),
      );
      for (const reply of made) {
        if (reply.status !== 200) throw new Error(`create user: ${JSON.stringify(reply.body)}`);
        fillers.push(reply.body.user_id);
      }
    }
    const bot = await hamlet.post<{ user_id: number }>('/bots', {
      full_name: 'Partial Bot',
      short_name: `partial${stamp}`,
    });
    if (bot.status !== 200) throw new Error(`create bot: ${JSON.stringify(bot.body)}`);
    const idle = await newPerson(t.context, 'Partial Idle');
    const newcomer = await newPerson(t.context, 'Partial Newcomer');
    const ids = async (client: ChatClient) => (await client.get<{ user_id: number }>('/users/me')).body.user_id;
    const [hamletId, othelloId, iagoId] = await Promise.all([ids(hamlet), ids(othello), ids(iago)]);
    const principals = [...fillers, bot.body.user_id, idle.user_id, hamletId, othelloId, iagoId];
    const made = await othello.post('/users/me/subscriptions', {
      subscriptions: JSON.stringify([{ name: BIG }]),
      principals: JSON.stringify(principals),
    });
    if (made.status !== 200) throw new Error(`create channel: ${JSON.stringify(made.body)}`);
    // Othello is active; the idle one is connected without being active; the fillers never came.
    for (const [client, status] of [
      [othello, 'active'],
      [idle.client, 'idle'],
    ] as const) {
      const reported = await client.post('/users/me/presence', { status });
      if (reported.status !== 200) throw new Error(`presence: ${JSON.stringify(reported.body)}`);
    }
    // Iago leaves: the channel is then among his unsubscribed ones.
    const left = await iago.delete('/users/me/subscriptions', { subscriptions: JSON.stringify([BIG]) });
    if (left.status !== 200) throw new Error(`unsubscribe: ${JSON.stringify(left.body)}`);
    const channel = (await hamlet.get<{ stream_id: number }>('/get_stream_id', { stream: BIG })).body.stream_id;
    t.context.world = {
      channel,
      bot: bot.body.user_id,
      active: othelloId,
      idle: idle.user_id,
      inactive: fillers[0]!,
      newcomer,
    };
  },
);

const json = (value: unknown) => JSON.stringify(value);
const SUBSCRIBERS = FILLERS + 4;

/** The big channel in one list of the register, for `client`. */
async function fromRegister(client: ChatClient, list: string, include: boolean | 'partial') {
  const params = { fetch_event_types: json(['subscription']), include_subscribers: include };
  const body = await snapshotOf(client, params);
  return (body[list] as Body[]).find((c) => c.name === BIG);
}

test('partial: a big channel lists its bots and recently active users, not the others, in every list', async (t) => {
  const { hamlet, iago, world } = t.context;
  const lists = [
    ['subscriptions', await fromRegister(hamlet, 'subscriptions', 'partial')],
    ['unsubscribed', await fromRegister(iago, 'unsubscribed', 'partial')],
    ['never_subscribed', await fromRegister(world.newcomer.client, 'never_subscribed', 'partial')],
    [
      'GET /users/me/subscriptions',
      (
        await hamlet.get<{ subscriptions: Body[] }>('/users/me/subscriptions', { include_subscribers: 'partial' })
      ).body.subscriptions.find((c) => c.name === BIG),
    ],
  ] as const;
  for (const [where, channel] of lists) {
    t.truthy(channel, where);
    t.is(channel!.subscriber_count, SUBSCRIBERS, where);
    t.false('subscribers' in channel!, where);
    const partial = channel!.partial_subscribers as number[];
    t.deepEqual(
      [...partial].sort((a, b) => a - b),
      [world.active, world.bot].sort((a, b) => a - b),
      where,
    );
    t.false(partial.includes(world.idle) || partial.includes(world.inactive), where);
  }
});

test('true still gives the whole list of a big channel', async (t) => {
  const { hamlet, world } = t.context;
  const channel = await fromRegister(hamlet, 'subscriptions', true);
  t.false('partial_subscribers' in channel!);
  const subscribers = channel!.subscribers as number[];
  t.is(subscribers.length, SUBSCRIBERS);
  t.true(subscribers.includes(world.inactive) && subscribers.includes(world.idle));
  const members = await hamlet.get<{ subscribers: number[] }>(`/streams/${world.channel}/members`);
  t.deepEqual([...subscribers].sort(), [...members.body.subscribers].sort());
});
