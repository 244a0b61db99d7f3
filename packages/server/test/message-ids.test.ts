import type { ChatClient } from '@chat/testkit';
import { withServer } from './context.js';

/**
 * Message ids as the original's database sequence makes them: small in a
 * fresh realm, about one apart, and increasing in the order sends are
 * acknowledged across the realm's channels and direct messages.
 */
const test = withServer(['iago', 'hamlet', 'othello']);

type Send = { id: number; started: number; acked: number };

async function send(client: ChatClient, to: 'Verona' | 'Denmark' | string[], content: string): Promise<Send> {
  const started = performance.now();
  const reply = await client.post<{ id: number }>(
    '/messages',
    typeof to === 'string'
      ? { type: 'stream', to, topic: 'ids', content }
      : { type: 'direct', to: JSON.stringify(to), content },
  );
  if (reply.status !== 200) throw new Error(`send: ${reply.status} ${JSON.stringify(reply.body)}`);
  return { id: reply.body.id, started, acked: performance.now() };
}

test.serial('a fresh realm numbers its messages from one, one apart, across channels and DMs', async (t) => {
  const { iago, hamlet, othello } = t.context;
  const sends: Send[] = [];
  const senders = [
    () => send(iago, 'Verona', 'a'),
    () => send(hamlet, ['othello@zulip.com'], 'b'),
    () => send(othello, 'Denmark', 'c'),
    () => send(hamlet, 'Verona', 'd'),
    () => send(iago, ['hamlet@zulip.com', 'othello@zulip.com'], 'e'),
  ];
  for (let i = 0; i < 30; i++) sends.push(await senders[i % senders.length]!());
  const ids = sends.map((s) => s.id);
  t.true(ids[0]! < 1000, `first id ${ids[0]}`);
  for (let i = 1; i < ids.length; i++) t.true(ids[i]! > ids[i - 1]!, `ids ${ids.join(',')}`);
  // Dense: nothing else sends here, so each message takes the next id.
  t.is(ids.at(-1)! - ids[0]!, ids.length - 1, `ids ${ids.join(',')}`);
  // Far below the 10^10 zulip-terminal takes for "newer than any message".
  t.true(ids.at(-1)! < 1e10);
});

test.serial('a send acknowledged before another starts has the smaller id, also when sends interleave', async (t) => {
  const { iago, hamlet, othello } = t.context;
  const lanes = [
    (i: number) => send(iago, 'Verona', `v${i}`),
    (i: number) => send(hamlet, 'Denmark', `d${i}`),
    (i: number) => send(othello, ['iago@zulip.com'], `p${i}`),
    (i: number) => send(hamlet, ['othello@zulip.com', 'iago@zulip.com'], `g${i}`),
  ];
  // Four clients, each sending its next message as soon as the last is acknowledged.
  const sends = (
    await Promise.all(
      lanes.map(async (lane) => {
        const done: Send[] = [];
        for (let i = 0; i < 15; i++) done.push(await lane(i));
        return done;
      }),
    )
  ).flat();
  t.is(new Set(sends.map((s) => s.id)).size, sends.length, 'ids are unique');
  let pairs = 0;
  for (const a of sends) {
    for (const b of sends) {
      if (a.acked < b.started) {
        pairs++;
        if (a.id >= b.id) t.fail(`id ${a.id} acknowledged before ${b.id} was sent`);
      }
    }
  }
  t.true(pairs > sends.length, `${pairs} ordered pairs`);
  const span = Math.max(...sends.map((s) => s.id)) - Math.min(...sends.map((s) => s.id));
  t.is(span, sends.length - 1);
});

test.serial('GET /messages answers the original anchor when nothing is unread, and finds below 10^10', async (t) => {
  const { hamlet } = t.context;
  const known = await send(t.context.iago, 'Verona', 'findable needle');
  const unread = await hamlet.get<{ anchor: number }>('/messages', {
    anchor: 'first_unread',
    num_before: 0,
    num_after: 0,
    narrow: JSON.stringify([{ operator: 'channel', operand: 'sandbox' }]),
  });
  t.is(unread.status, 200);
  t.is(unread.body.anchor, 10_000_000_000_000_000);
  // zulip-terminal searches from 10^10 back.
  const found = await hamlet.get<{ messages: Array<{ id: number }> }>('/messages', {
    anchor: 10_000_000_000,
    num_before: 30,
    num_after: 0,
    narrow: JSON.stringify([{ operator: 'search', operand: 'needle' }]),
  });
  t.deepEqual(
    found.body.messages.map((m) => m.id),
    [known.id],
  );
});
