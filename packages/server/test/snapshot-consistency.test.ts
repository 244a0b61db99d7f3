import type { ExecutionContext } from 'ava';
import { SYSTEM_GROUPS } from '@chat/protocol';
import type { ChatClient } from '@chat/testkit';
import { IDS, withServer, type Logins } from './context.js';
import { newPerson, type Person } from './people.js';
import { poll, register, snapshotOf, type Body, type Event, type Queue } from './queues.js';
import { ok } from './replies.js';

/**
 * Issue 5's consistency line, for every kind of state at once: while
 * writers change messages, drafts, subscriptions, accounts, statuses and
 * topic policies, clients register. Each client applies its events to its
 * snapshot the way a client does, strictly: adding what it already has, or
 * removing what it does not, means an event was applied twice. At the end,
 * each client's state must equal a snapshot read afresh (nothing lost).
 */
const test = withServer(['iago', 'hamlet', 'othello', 'cordelia', 'polonius'], { heartbeatMs: 1_000 });

const TYPES = ['message', 'update_message_flags', 'drafts', 'subscription', 'realm_user', 'user_status', 'user_topic'];
const CHANNELS = ['race 0', 'race 1', 'race 2'];

/** A client's view of the state under test, built from a snapshot and then moved by events. */
class View {
  readonly unread = new Set<number>();
  readonly drafts = new Map<number, string>();
  readonly subscribed = new Set<number>();
  readonly users = new Set<number>();
  readonly statuses = new Map<string, string>();
  readonly topics = new Map<string, number>();
  readonly twice: string[] = [];

  constructor(
    snapshot: Body,
    private readonly race: Set<number>,
  ) {
    const unread = snapshot.unread_msgs as { pms: Array<{ unread_message_ids: number[] }> };
    for (const id of unread.pms.flatMap((p) => p.unread_message_ids)) this.unread.add(id);
    for (const d of snapshot.drafts as Array<{ id: number; content: string }>) this.drafts.set(d.id, d.content);
    for (const s of snapshot.subscriptions as Array<{ stream_id: number }>) {
      if (race.has(s.stream_id)) this.subscribed.add(s.stream_id);
    }
    for (const u of snapshot.realm_users as Array<{ user_id: number }>) this.users.add(u.user_id);
    for (const [id, s] of Object.entries(snapshot.user_status as Record<string, { status_text?: string }>)) {
      if (s.status_text) this.statuses.set(id, s.status_text);
    }
    for (const u of snapshot.user_topics as Array<{ stream_id: number; topic_name: string; visibility_policy: number }>)
      this.topics.set(`${u.stream_id}:${u.topic_name}`, u.visibility_policy);
  }

  private add<T>(set: Set<T> | Map<T, unknown>, key: T, what: string, value?: unknown): void {
    if (set.has(key)) this.twice.push(`${what} ${String(key)} was already there`);
    if (set instanceof Set) set.add(key);
    else set.set(key, value);
  }

  private remove<T>(set: Set<T> | Map<T, unknown>, key: T, what: string): void {
    if (!set.delete(key)) this.twice.push(`${what} ${String(key)} was not there to remove`);
  }

  apply(e: Event): void {
    if (e.type === 'message') {
      const m = e.message as { id: number; type: string };
      const flags = e.flags as string[];
      if (m.type === 'private' && !flags.includes('read')) this.add(this.unread, m.id, 'unread message');
    } else if (e.type === 'drafts') {
      const drafts = (e.drafts ?? [e.draft]) as Array<{ id: number; content: string }> | undefined;
      if (e.op === 'add') for (const d of drafts!) this.add(this.drafts, d.id, 'draft', d.content);
      if (e.op === 'update') {
        const d = e.draft as { id: number; content: string };
        if (!this.drafts.has(d.id)) this.twice.push(`draft ${d.id} updated before it was added`);
        this.drafts.set(d.id, d.content);
      }
      if (e.op === 'remove') this.remove(this.drafts, e.draft_id as number, 'draft');
    } else if (e.type === 'subscription' && (e.op === 'add' || e.op === 'remove')) {
      for (const s of e.subscriptions as Array<{ stream_id: number }>) {
        if (!this.race.has(s.stream_id)) continue;
        if (e.op === 'add') this.add(this.subscribed, s.stream_id, 'subscription');
        else this.remove(this.subscribed, s.stream_id, 'subscription');
      }
    } else if (e.type === 'realm_user' && e.op === 'add') {
      this.add(this.users, (e.person as { user_id: number }).user_id, 'user');
    } else if (e.type === 'user_status' && typeof e.status_text === 'string') {
      if (e.status_text) this.statuses.set(String(e.user_id), e.status_text);
      else this.statuses.delete(String(e.user_id));
    } else if (e.type === 'user_topic') {
      const key = `${e.stream_id as number}:${e.topic_name as string}`;
      if (e.visibility_policy === 0) this.topics.delete(key);
      else this.topics.set(key, e.visibility_policy as number);
    }
  }

  /** The parts compared with a fresh snapshot. */
  summary() {
    const sorted = <T>(values: Iterable<T>) => [...values].sort();
    return {
      unread: sorted(this.unread),
      drafts: sorted(this.drafts),
      subscribed: sorted(this.subscribed),
      users: sorted(this.users),
      statuses: sorted(this.statuses),
      topics: sorted(this.topics),
    };
  }
}

/** The writers: each a loop of acknowledged changes, by the users who may make them. */
function writers(t: ExecutionContext<Record<string, unknown>>, me: ChatClient, race: number[]): Array<Promise<void>> {
  const { iago, hamlet, othello } = t.context as Record<string, ChatClient>;
  const to = JSON.stringify(['cordelia@zulip.com']);
  const principals = JSON.stringify([IDS.cordelia]);
  const loop = async (n: number, step: (i: number) => Promise<unknown>) => {
    for (let i = 0; i < n; i++) await step(i);
  };
  return [
    loop(15, (i) => ok(hamlet, 'POST', '/messages', { type: 'direct', to, content: `race ${i}` })),
    loop(15, (i) => ok(iago, 'POST', '/messages', { type: 'direct', to, content: `race ${i}` })),
    loop(8, async (i) => {
      const draft = { type: '', to: [], topic: '', content: `draft ${i}` };
      const [id] = (await ok(me, 'POST', '/drafts', { drafts: JSON.stringify([draft]) })).ids as number[];
      if (i % 2 === 0)
        await ok(me, 'PATCH', `/drafts/${id}`, { draft: JSON.stringify({ ...draft, content: 'edited' }) });
      if (i % 4 === 0) await ok(me, 'DELETE', `/drafts/${id}`);
    }),
    loop(12, async (i) => {
      const name = CHANNELS[i % CHANNELS.length]!;
      if (i % 2 === 0) {
        // No notification-bot DM, so the 30 direct messages above stay the only unread ones.
        const quiet = { send_new_subscription_messages: false };
        await ok(iago, 'POST', '/users/me/subscriptions', {
          subscriptions: JSON.stringify([{ name }]),
          principals,
          ...quiet,
        });
      } else {
        await ok(iago, 'DELETE', '/users/me/subscriptions', { subscriptions: JSON.stringify([name]), principals });
      }
    }),
    loop(5, (i) =>
      ok(iago, 'POST', '/users', { email: `racer-${i}@zulip.com`, password: 'race pw 1', full_name: `Racer ${i}` }),
    ),
    loop(8, (i) => ok(othello, 'POST', '/users/me/status', { status_text: `status ${i}` })),
    loop(6, (i) =>
      ok(me, 'POST', '/user_topics', { stream_id: race[0], topic: `topic ${i % 3}`, visibility_policy: 1 + (i % 3) }),
    ),
  ];
}

test('every client’s snapshot plus its events is the final state, each change applied once', async (t) => {
  const { server, iago } = t.context;
  const everyone = JSON.stringify([IDS.iago]);
  for (const name of CHANNELS) {
    await ok(iago, 'POST', '/users/me/subscriptions', {
      subscriptions: JSON.stringify([{ name }]),
      principals: everyone,
    });
  }
  const race = await Promise.all(
    CHANNELS.map(async (name) => (await ok(iago, 'GET', '/get_stream_id', { stream: name })).stream_id as number),
  );
  const me = await server.login('cordelia@zulip.com');
  const running = writers(t as never, me, race);
  const clients = Array.from({ length: 8 }, async (_, i) => {
    await new Promise((resolve) => setTimeout(resolve, i * 60));
    const queue = await register(await server.login('cordelia@zulip.com'), { event_types: JSON.stringify(TYPES) });
    return { queue, view: new View(queue.snapshot, new Set(race)) };
  });
  const registered = await Promise.all(clients);
  await Promise.all(running);
  const final = new View(await snapshotOf(me, { event_types: JSON.stringify(TYPES) }), new Set(race)).summary();
  t.is(final.unread.length, 30);

  const drain = async (queue: Queue, view: View) => {
    for (const event of await poll(queue, true)) view.apply(event);
  };
  for (const [i, { queue, view }] of registered.entries()) {
    // Acknowledged changes may still be on their way to the queue: poll until the view catches up.
    for (let round = 0; round < 50; round++) {
      await drain(queue, view);
      if (JSON.stringify(view.summary()) === JSON.stringify(final)) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    if (view.twice.length > 0) {
      const subs = (queue.snapshot.subscriptions as Array<{ stream_id: number }>).map((s) => s.stream_id);
      t.log(`client ${i}: snapshot subscriptions ${JSON.stringify(subs)}`);
      for (const e of queue.seen.filter((e) => e.type === 'subscription' && (e.op === 'add' || e.op === 'remove')))
        t.log(JSON.stringify({ id: e.id, op: e.op, s: (e.subscriptions as Body[]).map((x) => x.stream_id) }));
    }
    t.deepEqual(view.twice, [], `client ${i} applied a change twice`);
    t.deepEqual(view.summary(), final, `client ${i} ends where a fresh snapshot is`);
  }
});

type T = ExecutionContext<Logins<'iago' | 'hamlet' | 'othello' | 'cordelia' | 'polonius'>>;

/** Who may access all users: at role:members guests (Polonius) are restricted. */
async function restrict(iago: ChatClient, group: number) {
  const reply = await iago.patch('/realm', { can_access_all_users_group: JSON.stringify({ new: group }) });
  if (reply.status !== 200) throw new Error(JSON.stringify(reply.body));
}

/** A test run with guests restricted (`can_access_all_users_group` at members), the realm's setting put back after it. */
function restrictedGuestTest(title: string, body: (t: T) => Promise<void>) {
  test.serial(title, async (t) => {
    await restrict(t.context.iago, SYSTEM_GROUPS['role:members']);
    try {
      await body(t);
    } finally {
      await restrict(t.context.iago, SYSTEM_GROUPS['role:everyone']);
    }
  });
}

const GUEST_PARAMS = {
  event_types: JSON.stringify(['realm_user']),
  client_capabilities: JSON.stringify({ user_list_incomplete: true }),
};
const userIds = (snapshot: Body) => new Set((snapshot.realm_users as Array<{ user_id: number }>).map((u) => u.user_id));
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `count` registrations of Polonius, one every `gapMs`, while the changes go on. */
function guestClients(t: T, count: number, gapMs: number) {
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      await pause(i * gapMs);
      const queue = await register(await t.context.server.login('polonius@zulip.com'), GUEST_PARAMS);
      return { queue, users: userIds(queue.snapshot) };
    }),
  );
}

/** Polonius's users as a fresh snapshot has them, once it names all of `ids`. */
async function finalUsers(t: T, ids: number[]): Promise<number[]> {
  let final: number[] = [];
  for (let round = 0; round < 20 && !ids.every((id) => final.includes(id)); round++) {
    if (round > 0) await pause(200);
    final = [...userIds(await snapshotOf(t.context.polonius, GUEST_PARAMS))].sort();
  }
  t.true(
    ids.every((id) => final.includes(id)),
    'a fresh snapshot names them all',
  );
  return final;
}

/** `expectEachOnce` against a fresh snapshot that names all of `people`. */
async function expectEachAddedOnce(t: T, clients: Array<{ queue: Queue; users: Set<number> }>, people: Person[]) {
  await expectEachOnce(
    t,
    clients,
    await finalUsers(
      t,
      people.map((p) => p.user_id),
    ),
  );
}

/** New members named `prefix` a, b, c...: they share nothing with Polonius. */
const strangers = (t: T, prefix: string, count = 8) =>
  Promise.all(
    Array.from({ length: count }, (_, n) => newPerson(t.context, `${prefix} ${'abcdefghijklmnopqrstuvwxyz'[n]}`)),
  );

/**
 * Applies each client's realm_user adds and removes to its snapshot, strictly, until it has the final
 * list: an add of someone it has, or a remove of someone it has not, was applied twice.
 */
async function expectEachOnce(t: T, clients: Array<{ queue: Queue; users: Set<number> }>, final: number[]) {
  for (const [i, { queue, users }] of clients.entries()) {
    const twice: string[] = [];
    for (let round = 0; round < 50; round++) {
      for (const e of await poll(queue, true)) {
        if (e.type !== 'realm_user' || (e.op !== 'add' && e.op !== 'remove')) continue;
        const who = (e.person as { user_id: number }).user_id;
        if (e.op === 'add' && users.has(who)) twice.push(`add ${who} was already there`);
        if (e.op === 'remove' && !users.has(who)) twice.push(`remove ${who} was not there`);
        if (e.op === 'add') users.add(who);
        else users.delete(who);
      }
      if (JSON.stringify([...users].sort()) === JSON.stringify(final)) break;
      await pause(200);
    }
    t.deepEqual(twice, [], `client ${i} applied a change twice`);
    t.deepEqual([...users].sort(), final, `client ${i} ends where a fresh snapshot is`);
  }
}

restrictedGuestTest(
  'a restricted guest’s snapshot plus its realm_user adds and removes is the final list, each applied once',
  async (t) => {
    const { iago } = t.context;
    // Newcomers share no channel with Polonius (a guest) but the race's, so each join and leave changes his access.
    const people = await Promise.all(['Ann Guestrace', 'Ben Guestrace'].map((n) => newPerson(t.context, n)));
    const names = ['guest race 0', 'guest race 1'];
    for (const name of names) {
      await ok(iago, 'POST', '/users/me/subscriptions', {
        subscriptions: JSON.stringify([{ name }]),
        principals: JSON.stringify([IDS.polonius]),
      });
    }
    const running = people.map(async (p, n) => {
      const subscriptions = JSON.stringify([{ name: names[n] }]);
      for (let i = 0; i < 10; i++) {
        await ok(p.client, 'POST', '/users/me/subscriptions', { subscriptions });
        await ok(p.client, 'DELETE', '/users/me/subscriptions', { subscriptions: JSON.stringify([names[n]]) });
      }
      await ok(p.client, 'POST', '/users/me/subscriptions', { subscriptions });
    });
    const clients = await guestClients(t, 8, 80);
    await Promise.all(running);
    await expectEachAddedOnce(t, clients, people);
  },
);

restrictedGuestTest(
  'a restricted guest’s snapshot plus the adds of strangers’ first direct messages to him is the final list, each applied once',
  async (t) => {
    // Newcomers share nothing with Polonius: each one's first direct message gives him access to its sender,
    // and his UserActor tells him the sender's add as it records the conversation (direct-access.ts), while
    // registrations race it.
    const people = await strangers(t, 'Dm Racer');
    const sending = people.map(async (p, n) => {
      await pause(n * 50);
      await ok(p.client, 'POST', '/messages', {
        type: 'direct',
        to: JSON.stringify([IDS.polonius]),
        content: 'hello',
      });
    });
    const clients = await guestClients(t, 16, 25);
    await Promise.all(sending);
    await expectEachAddedOnce(t, clients, people);
  },
);

restrictedGuestTest(
  'a restricted guest’s snapshot plus the removes of deactivated users he knew through a channel is the final list, each applied once',
  async (t) => {
    const { iago } = t.context;
    // Newcomers share only this channel with Polonius: each one's deactivation takes his access away and
    // sends him a remove (tellDeactivation), while registrations race it.
    const people = await strangers(t, 'Gone Racer');
    await ok(iago, 'POST', '/users/me/subscriptions', {
      subscriptions: JSON.stringify([{ name: 'guest race gone' }]),
      principals: JSON.stringify([IDS.polonius, ...people.map((p) => p.user_id)]),
    });
    const leaving = people.map(async (p, n) => {
      await pause(n * 50);
      await ok(iago, 'DELETE', `/users/${p.user_id}`);
    });
    const clients = await guestClients(t, 16, 25);
    await Promise.all(leaving);
    const final = [...userIds(await snapshotOf(t.context.polonius, GUEST_PARAMS))].sort();
    t.true(
      people.every((p) => !final.includes(p.user_id)),
      'a fresh snapshot names none of them',
    );
    await expectEachOnce(t, clients, final);
  },
);

restrictedGuestTest(
  'a restricted guest gets one add for two first direct messages a stranger sends him at the same moment',
  async (t) => {
    // Each stranger sends two first messages together: both sends find Polonius without access to him.
    const people = await strangers(t, 'Twin Sender');
    const clients = await guestClients(t, 1, 0);
    const sending = people.map(async (p, n) => {
      await pause(n * 50);
      const send = () =>
        ok(p.client, 'POST', '/messages', { type: 'direct', to: JSON.stringify([IDS.polonius]), content: 'twice' });
      await Promise.all([send(), send()]);
    });
    clients.push(...(await guestClients(t, 8, 40)));
    await Promise.all(sending);
    await expectEachAddedOnce(t, clients, people);
  },
);

restrictedGuestTest(
  'a restricted guest gets one add for a stranger who joins his channel as the stranger’s first direct message to him is sent',
  async (t) => {
    const { iago } = t.context;
    // Each stranger joins Polonius's channel and sends him a first message at once: the join's add (the
    // channel's, with its peer_add) and the message's (his UserActor's, with its record) race each other.
    const people = await strangers(t, 'Both Ways', 24);
    await ok(iago, 'POST', '/users/me/subscriptions', {
      subscriptions: JSON.stringify([{ name: 'guest race both' }]),
      principals: JSON.stringify([IDS.polonius]),
    });
    const clients = await guestClients(t, 1, 0);
    const racing = people.map(async (p, n) => {
      await pause(n * 40);
      // The join 0 to 15 ms after the message, twice each (the overlap came at 6 to 11 ms under load 8).
      const lead = (n % 12) + (n < 12 ? 0 : 4);
      await Promise.all([
        pause(Math.max(lead, 0)).then(() =>
          ok(p.client, 'POST', '/users/me/subscriptions', {
            subscriptions: JSON.stringify([{ name: 'guest race both' }]),
          }),
        ),
        pause(Math.max(-lead, 0)).then(() =>
          ok(p.client, 'POST', '/messages', { type: 'direct', to: JSON.stringify([IDS.polonius]), content: 'hi' }),
        ),
      ]);
    });
    clients.push(...(await guestClients(t, 8, 40)));
    await Promise.all(racing);
    await expectEachAddedOnce(t, clients, people);
  },
);

restrictedGuestTest(
  'a restricted guest keeps a stranger who leaves his channel as the stranger’s first direct message to him is sent',
  async (t) => {
    const { iago } = t.context;
    // Each stranger shares only this channel with Polonius, and leaves it as he sends him a first message: the
    // leave's remove (judged at the edge from his conversations) must not outlive the conversation's access.
    const people = await strangers(t, 'Leaving Sender', 24);
    await ok(iago, 'POST', '/users/me/subscriptions', {
      subscriptions: JSON.stringify([{ name: 'guest race leave' }]),
      principals: JSON.stringify([IDS.polonius, ...people.map((p) => p.user_id)]),
    });
    const clients = await guestClients(t, 1, 0);
    const racing = people.map(async (p, n) => {
      await pause(n * 40);
      // The leave 0 to 15 ms after the message, twice each.
      const lead = (n % 12) + (n < 12 ? 0 : 4);
      await Promise.all([
        pause(lead).then(() =>
          ok(p.client, 'DELETE', '/users/me/subscriptions', { subscriptions: JSON.stringify(['guest race leave']) }),
        ),
        ok(p.client, 'POST', '/messages', { type: 'direct', to: JSON.stringify([IDS.polonius]), content: 'bye' }),
      ]);
    });
    clients.push(...(await guestClients(t, 8, 40)));
    await Promise.all(racing);
    await expectEachAddedOnce(t, clients, people);
  },
);
