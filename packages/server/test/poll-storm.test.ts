import { withServer } from './context.js';
import { poll, register, type Queue } from './queues.js';

/**
 * When a message reaches many queues at once, every waiting poll returns and
 * polls again together. Nothing on that path may ask the realm's one actor
 * once per poll: with mailboxes of 5 here, forty polls returning together
 * would find it full (503 OVERLOADED), as ten thousand did at the default
 * size in the fanout bench.
 */
const test = withServer(['hamlet', 'othello'], { mailboxCapacity: 5 });

test('forty polls that return together, and poll again together, all succeed', async (t) => {
  const { hamlet, othello } = t.context;
  const queues: Queue[] = [];
  for (let i = 0; i < 40; i++) queues.push(await register(othello, { event_types: JSON.stringify(['message']) }));
  const waiting = Promise.allSettled(queues.map((queue) => poll(queue)));
  // The polls are waiting at their queues before the message is sent.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const sent = await hamlet.post<{ id: number }>('/messages', {
    type: 'stream',
    to: 'Verona',
    topic: 'storm',
    content: 'to everyone at once',
  });
  t.is(sent.status, 200);
  const received = (await waiting).map((r) => (r.status === 'fulfilled' ? 'ok' : String(r.reason)));
  t.deepEqual(
    received.filter((r) => r !== 'ok'),
    [],
  );
  const again = await Promise.allSettled(queues.map((queue) => poll(queue, true)));
  t.deepEqual(
    again.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason)),
    [],
  );
  for (const queue of queues) {
    t.true(queue.seen.some((e) => e.type === 'message' && (e.message as { id: number }).id === sent.body.id));
  }
});
