import test from 'ava';
import { shardOf } from '@chat/runtime';
import { channelAddress, queueAddress, realmAddress, userAddress } from '@chat/protocol';
import type { ChatClient } from '@chat/testkit';
import { channelId } from './context.js';
import { startProcessCluster, sleep, LEASE_MS, type ProcessCluster } from './cluster-support.js';
import { metricsAt } from './support.js';

/** Faults of a real cluster: actor hosts as processes, killed or paused; real NATS, Kafka and Cassandra. */

const CHANNELS = ['Verona', 'Denmark', 'Scotland', 'Venice', 'Rome', 'sandbox'];

interface Sent {
  id: number;
  content: string;
  channel: string;
  started: number;
  at: number;
}

/** Sends numbered messages to the channels in turn from `lanes` concurrent loops until `stop()`. */
function sender(client: ChatClient, prefix: string, lanes = 4) {
  const acked: Sent[] = [];
  const failures: string[] = [];
  let running = true;
  let n = 0;
  const lane = async () => {
    while (running) {
      const i = n++;
      const content = `${prefix}-${i}`;
      const channel = CHANNELS[i % CHANNELS.length]!;
      const started = Date.now();
      const reply = await client
        .post<{ id: number }>('/messages', { type: 'stream', to: channel, topic: 'faults', content })
        .catch((err: unknown) => ({ status: 0, body: { id: 0, code: String(err) } }));
      if (reply.status === 200) acked.push({ id: reply.body.id, content, channel, started, at: Date.now() });
      else failures.push(`${reply.status} ${(reply.body as { code?: string }).code}`);
      await sleep(20);
    }
  };
  const done = Promise.all(Array.from({ length: lanes }, lane));
  return {
    acked,
    failures,
    async stop() {
      running = false;
      await done;
    },
  };
}

/** Every message of the test's channels: content → ids (more than one would be a duplicate). */
async function readBack(client: ChatClient): Promise<Map<string, number[]>> {
  const seen = new Map<string, number[]>();
  for (const name of CHANNELS) {
    const reply = await client.get<{ messages: Array<{ id: number; content: string }> }>('/messages', {
      anchor: 'newest',
      num_before: 5000,
      num_after: 0,
      apply_markdown: false,
      narrow: [{ operator: 'channel', operand: name }],
    });
    for (const m of reply.body.messages) seen.set(m.content, [...(seen.get(m.content) ?? []), m.id]);
  }
  return seen;
}

/**
 * Long-polls one queue until `stop()`, keeping every message id and every queue error. Queues live in
 * memory: one whose host died is gone (BAD_EVENT_QUEUE_ID), and the poller registers again with
 * `register` (if given), as clients of the original do. While a queue lives its event ids must follow
 * each other (`gaps`) and no message may come twice (`repeated`).
 */
function poller(client: ChatClient, queueId: string, register?: Record<string, unknown>) {
  const ids = new Set<number>();
  /** Message ids whose event came more than once on one queue. */
  const repeated: number[] = [];
  const gaps: string[] = [];
  const errors: string[] = [];
  /** The newest message of each snapshot registered again: what the client reads rather than gets as events. */
  const snapshots: number[] = [];
  let running = true;
  let last = -1;
  let mine = new Set<number>();
  const done = (async () => {
    while (running) {
      const reply = await client
        .get<{ events: Array<{ id: number; type: string; message?: { id: number } }> }>('/events', {
          queue_id: queueId,
          last_event_id: last,
        })
        .catch((err: unknown) => ({ status: 0, body: { events: [], code: String(err) } }));
      if (reply.status !== 200) {
        const code = (reply.body as { code?: string }).code;
        errors.push(`${reply.status} ${code}`);
        if (code === 'BAD_EVENT_QUEUE_ID' && register) {
          const again = await client.post<{ queue_id: string; last_event_id: number; max_message_id: number }>(
            '/register',
            register,
          );
          if (again.status === 200) {
            ({ queue_id: queueId, last_event_id: last } = again.body);
            snapshots.push(again.body.max_message_id);
            mine = new Set();
            continue;
          }
          errors.push(`register ${again.status}`);
        }
        await sleep(200);
        continue;
      }
      for (const event of reply.body.events) {
        if (event.id !== last + 1) gaps.push(`${queueId}: ${last} to ${event.id}`);
        last = Math.max(last, event.id);
        if (event.type !== 'message' || !event.message) continue;
        if (mine.has(event.message.id)) repeated.push(event.message.id);
        mine.add(event.message.id);
        ids.add(event.message.id);
      }
    }
  })();
  return {
    ids,
    repeated,
    gaps,
    errors,
    snapshots,
    get queueId() {
      return queueId;
    },
    async stop() {
      running = false;
      await done;
    },
  };
}

/**
 * A user whose UserActor (which keeps and sends their scheduled messages) lives on `hostId`: a
 * member of the development realm if one does, else a new account, made until one lands there.
 */
async function userOnHost(admin: ChatClient, hostId: string): Promise<ChatClient> {
  const { shardCount } = cluster.config;
  const onHost = async (id: number) =>
    (await cluster.ownerOf(shardOf(userAddress('zulip', id), shardCount))) === hostId;
  const users = await admin.get<{ members: Array<{ user_id: number; email: string; is_bot: boolean }> }>('/users');
  for (const user of users.body.members.filter((u) => !u.is_bot)) {
    if (await onHost(user.user_id)) return cluster.login(user.email);
  }
  for (let i = 0; i < 30; i++) {
    const email = `scheduler-${i}@zulip.com`;
    const made = await admin.post<{ user_id: number }>('/users', {
      email,
      password: 'pw',
      full_name: `Scheduler ${i}`,
    });
    if (await onHost(made.body.user_id)) return cluster.login(email);
  }
  throw new Error(`no user lands on ${hostId}`);
}

/** When each of `shards` was taken again after `since` (ms after it), by whom, and how long the take took, from the hosts' logs. */
async function takenSince(since: number, shards: number[]): Promise<string> {
  const taken = new Map<number, string>();
  for (const host of cluster.hosts) {
    for (const line of (await host.log()).split('\n')) {
      if (!line.includes('"shard taken"')) continue;
      const { time, shard, tookMs } = JSON.parse(line) as { time: number; shard: number; tookMs: number };
      if (time >= since && shards.includes(shard) && !taken.has(shard))
        taken.set(shard, `${shard} at +${time - since} ms by ${host.id.split('-').at(-1)} (took ${tookMs} ms)`);
    }
  }
  return shards.map((shard) => taken.get(shard) ?? `${shard} not taken`).join(', ');
}

/** How often each value occurs, as `value ×n` in order of first occurrence. */
function tally(values: string[]): string {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts].map(([value, n]) => `${value} ×${n}`).join(', ') || 'none';
}

/** The edge's admission refusals since it started, by reason (from its /metrics). */
async function admissionRefusals(): Promise<string> {
  const refused = [...(await metricsAt(cluster.edge.url))].flatMap(([series, n]) => {
    const reason = /^chat_admission_refused\{reason="([^"]+)"\}$/.exec(series)?.[1];
    return reason !== undefined && n > 0 ? [`${reason} ×${n}`] : [];
  });
  return refused.join(', ') || 'none';
}

let cluster: ProcessCluster;

test.before(async () => {
  cluster = await startProcessCluster();
});

test.after.always(async () => {
  await cluster?.close();
});

test.serial('failover: a host killed with SIGKILL loses no acknowledged send; its queues are gone', async (t) => {
  const iago = await cluster.login('iago@zulip.com');
  const hamlet = await cluster.login('hamlet@zulip.com');
  const { shardCount } = cluster.config;
  // The victim is the host of the poller's queue, so the queue must move, and of the realm (which
  // hands out message ids), so the id sequence must go on from another host: queues land on random
  // shards, so register until one lands there.
  const realmShard = shardOf(realmAddress('zulip'), shardCount);
  const realmHost = await cluster.ownerOf(realmShard);
  let queueId = '';
  const params = { event_types: ['message'], all_public_streams: true };
  for (let i = 0; i < 30; i++) {
    const registered = await hamlet.post<{ queue_id: string }>('/register', params);
    queueId = registered.body.queue_id;
    if ((await cluster.ownerOf(shardOf(queueAddress('zulip', queueId), shardCount))) === realmHost) break;
  }
  const victimId = await cluster.ownerOf(shardOf(queueAddress('zulip', queueId), shardCount));
  const victim = cluster.hosts.find((h) => h.id === victimId)!;
  const victimChannels: string[] = [];
  for (const name of CHANNELS) {
    const shard = shardOf(channelAddress('zulip', await channelId(iago, name)), shardCount);
    if ((await cluster.ownerOf(shard)) === victimId) victimChannels.push(name);
  }
  const subscribed = await hamlet.get<{ subscriptions: Array<{ name: string }> }>('/users/me/subscriptions');
  const hamletSees = new Set(subscribed.body.subscriptions.map((sub) => sub.name));
  // Scheduled messages of a user whose actor is on the victim: one due about 4 s after the kill
  // (before the shard has moved: sent late, on recovery), one about 11 s after (by the timer the
  // new host arms).
  const scheduler = await userOnHost(iago, victimId!);
  const scheduled = [7, 14].map((s) => ({
    content: `failover-scheduled-${s}`,
    due: Math.floor(Date.now() / 1000) + s,
  }));
  for (const { content, due } of scheduled) {
    const reply = await scheduler.post('/scheduled_messages', {
      type: 'stream',
      to: JSON.stringify(await channelId(iago, 'Verona')),
      topic: 'faults',
      content,
      scheduled_delivery_timestamp: due,
    });
    t.is(reply.status, 200, JSON.stringify(reply.body));
  }
  const poll = poller(hamlet, queueId, params);
  const send = sender(iago, 'failover');
  await sleep(3000);
  const victimShards = (await cluster.leases.list()).filter((l) => l.owner === victimId).map((l) => l.shard);
  const killedAt = Date.now();
  victim.signal('SIGKILL');
  // Asks in flight to the dead host wait out their timeout (NATS does not tell an asker that its
  // responder died), which can hold every lane of the sender; a probe started every 250 ms, on its
  // own, sees when the service answers again.
  const probeTo = victimChannels[0] ?? 'Verona';
  const probes: Array<Promise<Sent | undefined>> = [];
  const probeAnswers: string[] = [];
  const probing = setInterval(() => {
    const started = Date.now();
    const content = `failover-probe-${probes.length}`;
    probes.push(
      iago.post<{ id: number }>('/messages', { type: 'stream', to: probeTo, topic: 'faults', content }).then(
        (r) => {
          probeAnswers.push(r.status === 200 ? '200' : `${r.status} ${(r.body as { code?: string }).code}`);
          return r.status === 200 ? { id: r.body.id, content, channel: probeTo, started, at: Date.now() } : undefined;
        },
        () => undefined,
      ),
    );
  }, 250);
  await sleep(15_000);
  clearInterval(probing);
  await send.stop();
  const probed = (await Promise.all(probes)).filter((p): p is Sent => p !== undefined);
  send.acked.push(...probed);
  // The poller registers again once its queue is found gone; a message sent after that must come
  // as an event on the new queue (one sent before may be in the new snapshot instead).
  for (let i = 0; i < 50 && poll.queueId === queueId; i++) await sleep(200);
  const finalChannel = send.acked.filter((s) => hamletSees.has(s.channel)).at(-1)!.channel;
  const finalStarted = Date.now();
  const final = await iago.post<{ id: number }>('/messages', {
    type: 'stream',
    to: finalChannel,
    topic: 'faults',
    content: 'failover-final',
  });
  t.is(final.status, 200, JSON.stringify(final.body));
  send.acked.push({
    id: final.body.id,
    content: 'failover-final',
    channel: finalChannel,
    started: finalStarted,
    at: Date.now(),
  });
  const lastId = final.body.id;
  for (let i = 0; i < 50 && !poll.ids.has(lastId); i++) await sleep(200);
  await poll.stop();

  const before = send.acked.filter((s) => s.at < killedAt);
  const after = send.acked.filter((s) => s.at >= killedAt);
  // Recovery: the first probe (to one of the victim's channels, if it had any) that succeeded.
  const recoveryMs = Math.min(...probed.map((p) => p.at)) - killedAt;
  const takes = await takenSince(killedAt, victimShards);
  const stored = await readBack(iago);
  const missing = send.acked.filter((s) => !stored.get(s.content)?.includes(s.id));
  const doubled = [...stored].filter(([content, ids]) => content.startsWith('failover') && ids.length > 1);
  // A send is the client's once it came as an event, or once a snapshot it registered again holds it.
  const snapshotHolds = Math.max(-1, ...poll.snapshots);
  const notDelivered = send.acked.filter(
    (s) => hamletSees.has(s.channel) && !poll.ids.has(s.id) && s.id > snapshotHolds,
  );
  const lostBefore = notDelivered.filter((s) => s.at < killedAt).length;
  t.log(
    `killed ${victim.id} (queue host; channels there: ${victimChannels.join(', ') || 'none'}): ` +
      `${send.acked.length} sends acknowledged (${before.length} before, ${after.length} after), ` +
      `${send.failures.length} failed [${[...new Set(send.failures)].join('; ')}], ` +
      `first success of a moved shard ${recoveryMs} ms after the kill; its shards ${takes}; ` +
      `probes answered ${tally(probeAnswers)}, the edge refused ${await admissionRefusals()}; ` +
      `${missing.length} acknowledged missing, ${doubled.length} doubled; ` +
      `queue ${queueId} (of a subscriber of ${[...hamletSees].join(', ')}): ${poll.ids.size} message events, ` +
      `${notDelivered.length} acknowledged sends to those channels without an event (${lostBefore} before the kill), ` +
      `${poll.repeated.length} events repeated, gaps [${poll.gaps.join('; ')}], ` +
      `registered again ${poll.snapshots.length}× (snapshots to message ${snapshotHolds}), ` +
      `poll errors [${[...new Set(poll.errors)].join('; ')}]`,
  );
  t.deepEqual(missing, [], 'every acknowledged send is readable');
  t.deepEqual(doubled, [], 'no message is stored twice');
  t.true(after.length > 0, 'sends succeed after the kill');
  t.true(recoveryMs < 10_000, `the service answered again within 10 s (${recoveryMs} ms)`);
  // The queue lived in memory on the killed host: gone, never going on from an older state.
  t.true(
    poll.errors.some((e) => e.includes('BAD_EVENT_QUEUE_ID')),
    'the queue of the killed host is gone after the failover',
  );
  t.not(poll.queueId, queueId, 'the client registered again');
  t.true(poll.ids.has(lastId), 'the poller gets events sent after the failover on its new queue');
  t.deepEqual(notDelivered, [], 'every acknowledged send came as an event or is in the snapshot registered again');
  t.deepEqual(poll.repeated, [], 'no event comes twice on one queue');
  t.deepEqual(poll.gaps, [], 'a queue goes on exactly or is gone: no event id skipped');
  // Dense ids across the realm's move: unique, in the order sends were acknowledged, and small.
  t.is(victimId, realmHost, 'the realm was on the killed host');
  t.not(await cluster.ownerOf(realmShard), realmHost, 'the realm moved');
  const ids = send.acked.map((s) => s.id);
  t.is(new Set(ids).size, ids.length, 'no id given twice');
  const outOfOrder = send.acked.filter((a) => send.acked.some((b) => a.at < b.started && a.id >= b.id));
  t.deepEqual(outOfOrder, [], 'a send acknowledged before another started has the smaller id');
  t.true(Math.max(...ids) < 10 ** 10, `ids stay small (largest ${Math.max(...ids)})`);
  // The scheduled messages were sent by the actor's new host, each once, and none is left waiting.
  let sentScheduled = scheduled.map(({ content }) => stored.get(content) ?? []);
  for (let i = 0; i < 40 && sentScheduled.some((ids) => ids.length === 0); i++) {
    await sleep(500);
    const again = await readBack(iago);
    sentScheduled = scheduled.map(({ content }) => again.get(content) ?? []);
  }
  const waiting = await scheduler.get<{ scheduled_messages: unknown[] }>('/scheduled_messages');
  t.log(
    `scheduled by ${scheduler.credentials!.email} (actor on ${victimId}), due ${scheduled
      .map((s) => `${s.due * 1000 - killedAt} ms`)
      .join(' and ')} after the kill: stored ids ${JSON.stringify(sentScheduled)}`,
  );
  t.deepEqual(
    sentScheduled.map((ids) => ids.length),
    [1, 1],
    'each scheduled message is sent once after the failover',
  );
  t.deepEqual(waiting.body.scheduled_messages, [], 'none is left waiting');
});

test.serial('fencing: a host paused past its lease writes nothing after it resumes', async (t) => {
  const iago = await cluster.login('iago@zulip.com');
  const { shardCount } = cluster.config;
  const veronaShard = shardOf(channelAddress('zulip', await channelId(iago, 'Verona')), shardCount);
  const victimId = (await cluster.ownerOf(veronaShard))!;
  const victim = cluster.hosts.find((h) => h.id === victimId && h.child.exitCode === null && !h.child.signalCode);
  if (!victim) return t.fail(`Verona's host ${victimId} is not a live process of this test`);
  const send = (content: string) =>
    iago.post<{ id: number }>('/messages', { type: 'stream', to: 'Verona', topic: 'fencing', content });
  const acked: string[] = [];
  for (let i = 0; i < 3; i++) if ((await send(`fence-before-${i}`)).status === 200) acked.push(`fence-before-${i}`);

  victim.signal('SIGSTOP');
  // Asked while the host is paused: they reach only its socket, and must never be written.
  const stranded = Array.from({ length: 4 }, (_, i) => send(`fence-stranded-${i}`));
  const movedBy = Date.now() + 30_000;
  let owner: string | undefined = victimId;
  while ((owner === victimId || owner === undefined) && Date.now() < movedBy) {
    await sleep(200);
    owner = await cluster.ownerOf(veronaShard);
  }
  t.not(owner, victimId, 'the shard moved to another host');
  for (let i = 0; i < 3; i++) if ((await send(`fence-during-${i}`)).status === 200) acked.push(`fence-during-${i}`);
  const strandedReplies = await Promise.all(stranded);
  victim.signal('SIGCONT');
  await sleep(LEASE_MS + 2000);
  for (let i = 0; i < 3; i++) if ((await send(`fence-after-${i}`)).status === 200) acked.push(`fence-after-${i}`);

  const log = await victim.log();
  const refused = log.split('\n').filter((line) => line.includes('the lease of its shard ran out')).length;
  const lost = log.split('\n').filter((line) => line.includes('shard lease lost')).length;
  const stored = await readBack(iago);
  const strandedOk = strandedReplies.filter((r) => r.status === 200).length;
  const strandedStored = [...stored.keys()].filter((c) => c.startsWith('fence-stranded'));
  t.log(
    `paused ${victimId} for ~${LEASE_MS} ms+ while Verona moved to ${owner}; after SIGCONT it refused ${refused} ` +
      `messages and dropped ${lost} lost shards; stranded asks: ${strandedOk} acknowledged, ${strandedStored.length} stored; ` +
      `${acked.length} other sends acknowledged`,
  );
  t.true(refused + lost > 0, 'the resumed host noticed it had lost its shards');
  // A stranded ask is stored only if it was acknowledged (by the new owner, after a retry).
  t.true(strandedStored.length <= strandedOk, 'nothing the paused host took is written unacknowledged');
  for (const content of acked) t.deepEqual(stored.get(content)?.length, 1, `${content} stored once`);
});

test.serial(
  'graceful stop: a host stopped with SIGTERM hands its queues off, and a waiting poll goes on',
  async (t) => {
    const iago = await cluster.login('iago@zulip.com');
    const hamlet = await cluster.login('hamlet@zulip.com');
    const registered = await hamlet.post<{ queue_id: string }>('/register', { event_types: ['message'] });
    const queueId = registered.body.queue_id;
    const ownerId = await cluster.ownerOf(shardOf(queueAddress('zulip', queueId), cluster.config.shardCount));
    const owner = cluster.hosts.find((h) => h.id === ownerId)!;
    const poll = poller(hamlet, queueId);
    await sleep(1000);
    owner.signal('SIGTERM');
    await new Promise((resolve) => owner.child.once('exit', resolve));
    const sent = await iago.post<{ id: number }>('/messages', {
      type: 'stream',
      to: 'Denmark',
      topic: 'graceful',
      content: 'after the stop',
    });
    t.is(sent.status, 200);
    for (let i = 0; i < 100 && !poll.ids.has(sent.body.id); i++) await sleep(200);
    await poll.stop();
    t.log(`stopped ${ownerId}, the host of queue ${queueId}; poll errors [${poll.errors.join('; ')}]`);
    t.true(poll.ids.has(sent.body.id), 'the poll waiting at the stop gets the next message on the same queue');
    t.deepEqual(poll.errors, [], 'the client saw no error');
    t.deepEqual([poll.repeated, poll.gaps], [[], []], 'the queue went on exactly');
  },
);

test.serial('ownership checker: no two hosts ever acted for one shard at once', (t) => {
  const overlaps = cluster.checker.overlaps();
  t.log(
    `${cluster.checker.leaseReads} reads of the lease table, ${cluster.checker.announcedOwners} ownership windows announced`,
  );
  t.true(cluster.checker.leaseReads > 10);
  t.true(cluster.checker.announcedOwners > cluster.config.shardCount);
  t.deepEqual(overlaps, []);
  t.deepEqual(cluster.checker.problems, []);
});
