import type { ChatClient } from '@chat/testkit';
import { withServer } from './context.js';
import { held, next, poll, register, snapshotOf, type Body, type Event } from './queues.js';
import { TestServer } from './support.js';

/**
 * The event system as a client sees it: register, long-poll, heartbeats,
 * collection, and every event checked against the reference's schemas.
 */
const test = withServer(['iago', 'hamlet', 'othello'], { heartbeatMs: 400, queueMaxEvents: 60 });

const messageWithId = (id: () => number | undefined) => (e: Event) =>
  e.type === 'message' && (e.message as Body).id === id();

const send = (client: ChatClient, params: Body) => client.post<{ id: number }>('/messages', params);

test('a message sent by another user reaches a blocked poll, with flags and the sender', async (t) => {
  const { iago, hamlet } = t.context;
  const queue = await register(iago, { event_types: ['message'] });
  let id: number | undefined;
  const waiting = next(
    queue,
    messageWithId(() => id),
  );
  const sent = await send(hamlet, { type: 'stream', to: 'Denmark', topic: 'events', content: 'hi @**Iago**' });
  id = sent.body.id;
  const event = await waiting;
  const message = event.message as Body;
  t.is(message.id, sent.body.id);
  t.is(message.sender_email, 'hamlet@zulip.com');
  t.is(message.display_recipient, 'Denmark');
  t.is(message.content, 'hi @**Iago**');
  t.deepEqual(event.flags, ['mentioned']);
  t.false('local_message_id' in event);
});

test('the sending queue gets local_message_id back; the sender sees its message read', async (t) => {
  const { iago } = t.context;
  const queue = await register(iago, { event_types: ['message'], apply_markdown: true });
  const sent = await send(iago, {
    type: 'stream',
    to: 'Denmark',
    topic: 'echo',
    content: '**bold**',
    queue_id: queue.queue_id,
    local_id: '12.01',
  });
  const event = await next(
    queue,
    messageWithId(() => sent.body.id),
  );
  t.is(event.local_message_id, '12.01');
  t.deepEqual(event.flags, ['read']);
  t.is((event.message as Body).content, '<p><strong>bold</strong></p>');
});

test('one message to several queues: each gets its own flags, format and local id', async (t) => {
  const { iago, hamlet, othello } = t.context;
  const own = await register(iago, { event_types: ['message'], apply_markdown: true });
  const html = await register(hamlet, { event_types: ['message'], apply_markdown: true });
  const markdown = await register(othello, { event_types: ['message'], apply_markdown: false });
  const plain = await register(othello, { event_types: ['message'], apply_markdown: true });
  const sent = await send(iago, {
    type: 'stream',
    to: 'Denmark',
    topic: 'shared',
    content: '**hi** @**Othello, the Moor of Venice**',
    queue_id: own.queue_id,
    local_id: '7.01',
  });
  const got = async (queue: typeof own) =>
    await next(
      queue,
      messageWithId(() => sent.body.id),
    );
  const [mine, hamlets, othellos, othellosHtml] = [
    await got(own),
    await got(html),
    await got(markdown),
    await got(plain),
  ];
  t.deepEqual(
    [mine.flags, hamlets.flags, othellos.flags, othellosHtml.flags],
    [['read'], [], ['mentioned'], ['mentioned']],
  );
  t.is(mine.local_message_id, '7.01');
  t.false('local_message_id' in hamlets || 'local_message_id' in othellos);
  const content = (e: Event) => (e.message as Body).content as string;
  t.true(content(hamlets).startsWith('<p><strong>hi</strong>'));
  t.is(content(othellos), '**hi** @**Othello, the Moor of Venice**');
  t.is(content(othellosHtml), content(hamlets));
  t.false('flags' in (hamlets.message as Body));
});

test("each queue's later polls keep its own format (the edge keeps a queue's spec after its first poll)", async (t) => {
  const { iago, othello } = t.context;
  const markdown = await register(othello, { event_types: ['message'], apply_markdown: false });
  const html = await register(othello, { event_types: ['message'], apply_markdown: true });
  for (const word of ['one', 'two']) {
    const sent = await send(iago, { type: 'stream', to: 'Denmark', topic: 'specs', content: `**${word}**` });
    const sentHere = messageWithId(() => sent.body.id);
    t.is(((await next(markdown, sentHere)).message as Body).content, `**${word}**`);
    t.is(((await next(html, sentHere)).message as Body).content, `<p><strong>${word}</strong></p>`);
  }
});

test('direct messages reach their participants only', async (t) => {
  const { iago, hamlet, othello } = t.context;
  const [qi, qo] = [await register(iago), await register(othello)];
  const sent = await send(hamlet, { type: 'direct', to: JSON.stringify(['iago@zulip.com']), content: 'psst' });
  const event = await next(
    qi,
    messageWithId(() => sent.body.id),
  );
  t.is((event.message as Body).type, 'private');
  const others = await held(qo);
  t.false(others.some((e) => e.type === 'message' && (e.message as Body).id === sent.body.id));
});

test('event_types and narrow filter at the queue', async (t) => {
  const { iago, hamlet } = t.context;
  const edits = await register(iago, { event_types: ['update_message'] });
  const verona = await register(iago, { narrow: [['stream', 'Verona']] });
  await send(hamlet, { type: 'stream', to: 'Denmark', topic: 'filters', content: 'not for Verona' });
  const inVerona = await send(hamlet, { type: 'stream', to: 'Verona', topic: 'filters', content: 'for Verona' });
  const event = await next(verona, (e) => e.type === 'message');
  t.is((event.message as Body).id, inVerona.body.id);
  t.deepEqual(await poll(edits, true), []);
});

test('a waiting poll is answered by a heartbeat when nothing happens', async (t) => {
  const queue = await register(t.context.othello, { event_types: ['update_message'] });
  const started = Date.now();
  const events = await poll(queue);
  t.deepEqual(
    events.map((e) => e.type),
    ['heartbeat'],
  );
  t.true(Date.now() - started >= 300, 'answered only after the heartbeat interval');
});

test('an idle queue is collected: BAD_EVENT_QUEUE_ID with the queue id', async (t) => {
  // Its own server, so that the short idle timeout collects no other test's queue.
  // The idle time leaves room for a slow poll on a loaded machine (or a cluster's extra hops).
  const server = await TestServer.start({ queueIdleMs: 1500 });
  try {
    const othello = await server.login('othello@zulip.com');
    // The idle one first, and the kept one polled as soon as it exists: on a loaded cluster one register
    // can take most of the idle time, and the kept queue's time starts at its own.
    const idle = await register(othello, { event_types: ['message'] });
    const kept = await register(othello, { event_types: ['message'] });
    // Polling keeps a queue alive; the other one is left alone for twice its idle time.
    for (const until = Date.now() + 3000; Date.now() < until;) {
      const polled = await othello.get('/events', { queue_id: kept.queue_id, dont_block: true });
      t.is(polled.status, 200, JSON.stringify(polled.body));
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const reply = await othello.get<Body>('/events', { queue_id: idle.queue_id, last_event_id: -1 });
    t.is(reply.status, 400);
    t.like(reply.body, { result: 'error', code: 'BAD_EVENT_QUEUE_ID', queue_id: idle.queue_id });
  } finally {
    await server.stop();
  }
});

test('two servers in one process never show each other their messages (the edge keeps its renderings)', async (t) => {
  // Two fresh servers number their messages alike in a realm of the same name: a rendering kept for the
  // whole process, by realm, message id and timestamp, gave the second server's poll the first's text.
  const servers = [await TestServer.start(), await TestServer.start()];
  try {
    const [a, b] = await Promise.all(
      servers.map(async (server) => {
        const [hamlet, othello] = [await server.login('hamlet@zulip.com'), await server.login('othello@zulip.com')];
        return { hamlet, queue: await register(othello, { event_types: ['message'] }) };
      }),
    );
    for (let attempt = 0; attempt < 10; attempt++) {
      const shown = [];
      for (const [name, side] of [
        ['a', a!],
        ['b', b!],
      ] as const) {
        const content = `${name} ${attempt}`;
        const sent = await send(side.hamlet, { type: 'stream', to: 'Denmark', topic: 'two servers', content });
        const event = await next(
          side.queue,
          messageWithId(() => sent.body.id),
        );
        shown.push({ content, message: event.message as Body });
      }
      const [first, second] = shown as [{ content: string; message: Body }, { content: string; message: Body }];
      t.is(first.message.content, first.content);
      t.is(second.message.content, second.content);
      // The same id and second: the case a process-wide rendering confused.
      if (first.message.id === second.message.id && first.message.timestamp === second.message.timestamp) return;
    }
    t.fail('the two servers never sent a message of the same id in the same second');
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
  }
});

test('DELETE /events frees the queue; an unknown or foreign queue is BAD_EVENT_QUEUE_ID', async (t) => {
  const { othello, hamlet } = t.context;
  const queue = await register(othello);
  const foreign = await hamlet.get<Body>('/events', { queue_id: queue.queue_id, dont_block: true });
  t.like(foreign.body, { code: 'BAD_EVENT_QUEUE_ID' });
  t.is((await othello.delete('/events', { queue_id: queue.queue_id })).status, 200);
  const after = await othello.get<Body>('/events', { queue_id: queue.queue_id, dont_block: true });
  t.like(after.body, { code: 'BAD_EVENT_QUEUE_ID' });
  const unknown = await othello.get<Body>('/events', { queue_id: 'no-such-queue', dont_block: true });
  t.is(unknown.status, 400);
  t.like(unknown.body, { code: 'BAD_EVENT_QUEUE_ID', queue_id: 'no-such-queue' });
});

test('acknowledged events are pruned; asking again from before them is an error', async (t) => {
  const { iago, hamlet } = t.context;
  const queue = await register(iago, { event_types: ['message'] });
  await send(hamlet, { type: 'stream', to: 'Denmark', topic: 'prune', content: 'one' });
  const first = await next(queue, (e) => e.type === 'message');
  await send(hamlet, { type: 'stream', to: 'Denmark', topic: 'prune', content: 'two' });
  const second = await next(queue, (e) => e.type === 'message' && e.id > first.id);
  t.true(second.id > first.id);
  // Polling from the last event received acknowledges both.
  await poll(queue, true);
  const stale = await iago.get<Body>('/events', { queue_id: queue.queue_id, last_event_id: -1, dont_block: true });
  t.is(stale.status, 400);
  t.like(stale.body, { code: 'BAD_REQUEST' });
});

test('a queue its client stopped reading is collected at its cap', async (t) => {
  const { server, hamlet } = t.context;
  // Only Cordelia hears this flood, so the other tests' queues stay below the cap.
  const cordelia = await server.login('cordelia@zulip.com');
  const queue = await register(cordelia, { event_types: ['message'] });
  const to = JSON.stringify(['cordelia@zulip.com']);
  for (let i = 0; i < 61; i++) await send(hamlet, { type: 'direct', to, content: `${i}` });
  const reply = await cordelia.get<Body>('/events', { queue_id: queue.queue_id, last_event_id: -1, dont_block: true });
  t.like(reply.body, { code: 'BAD_EVENT_QUEUE_ID' });
});

test('register returns the snapshot sections asked for, with unread messages', async (t) => {
  const { othello, hamlet } = t.context;
  const sent = await send(hamlet, { type: 'direct', to: JSON.stringify(['othello@zulip.com']), content: 'unread' });
  const snapshot = await snapshotOf(othello, {
    fetch_event_types: ['message', 'update_message_flags', 'subscription', 'realm_user', 'realm'],
  });
  t.is(snapshot.zulip_feature_level, 420);
  t.true((snapshot.max_message_id as number) >= sent.body.id);
  const unread = snapshot.unread_msgs as { pms: Array<{ other_user_id: number; unread_message_ids: number[] }> };
  t.true(unread.pms.some((p) => p.unread_message_ids.includes(sent.body.id)));
  t.true((snapshot.subscriptions as Body[]).length > 0);
  t.true((snapshot.realm_users as Body[]).some((u) => u.email === 'hamlet@zulip.com'));
  t.is(snapshot.max_message_length, 10000);
  const slim = await snapshotOf(othello, { fetch_event_types: ['message'] });
  t.false('subscriptions' in slim);
  t.false('unread_msgs' in slim);
});

test('snapshot plus events is the final state, with writers racing the registrations', async (t) => {
  const { server, hamlet, iago } = t.context;
  // Only Prospero receives these messages, so no other test's traffic mixes in.
  const prospero = await server.login('prospero@zulip.com');
  const to = JSON.stringify(['prospero@zulip.com']);
  // A send refused 503 (the server overloaded, or a shard changing hands on the cluster) is sent again after
  // its Retry-After, as clients do; any other failure is the test's.
  const sendSurely = async (writer: ChatClient, content: string) => {
    for (let attempt = 0; ; attempt++) {
      const reply = await send(writer, { type: 'direct', to, content });
      if (reply.status === 200) return;
      if (reply.status !== 503 || attempt === 10) {
        t.fail(`${content}: ${reply.status} ${JSON.stringify(reply.body)}`);
        return;
      }
      t.log(`${content}: 503 ${JSON.stringify(reply.body)}, sent again`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  };
  const writers = [hamlet, iago].map(async (writer, w) => {
    for (let i = 0; i < 25; i++) await sendSurely(writer, `race ${w}.${i}`);
  });
  const unreadIn = (snapshot: Body) =>
    (snapshot.unread_msgs as { pms: Array<{ unread_message_ids: number[] }> }).pms.flatMap((p) => p.unread_message_ids);
  const clients = Array.from({ length: 6 }, async (_, i) => {
    await new Promise((resolve) => setTimeout(resolve, i * 40));
    const queue = await register(prospero, { event_types: ['message', 'update_message_flags'] });
    return { queue, unread: new Set(unreadIn(queue.snapshot)) };
  });
  const registered = await Promise.all(clients);
  await Promise.all(writers);
  const final = new Set(
    unreadIn(await snapshotOf(prospero, { fetch_event_types: ['message', 'update_message_flags'] })),
  );
  for (const { queue, unread } of registered) {
    // Drain the queue: every event after last_event_id, until it is quiet.
    for (;;) {
      const events = await poll(queue, true);
      if (events.length === 0) break;
      // Other tests talk in channels Prospero is in: only direct messages count here.
      for (const event of events.filter((e) => e.type === 'message' && (e.message as Body).type === 'private')) {
        const id = (event.message as Body).id as number;
        t.false(unread.has(id), `message ${id} is both in the snapshot and in the queue`);
        unread.add(id);
      }
    }
    t.deepEqual([...unread].sort(), [...final].sort());
  }
  t.is(final.size, 50);
});
