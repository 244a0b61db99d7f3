import type { ExecutionContext } from 'ava';
import { SYSTEM_GROUPS } from '@chat/protocol';
import { checkEvent, checkResponse } from '@chat/testkit';
import { expectOk } from './matrix-fixtures.js';
import { IDS, withServer, type Logins } from './context.js';
import { eventsUntil, next, poll, register, snapshotOf, type Body, type Event, type Queue } from './queues.js';
import { newPerson, type Person } from './people.js';
import { linkIn, mailsTo, postForm } from './invite-support.js';

/**
 * `can_access_all_users_group` set to members: a guest knows only himself,
 * the bots and whoever shares a channel (or a group direct message) with
 * him, as the original's `get_accessible_user_ids`. The others are an
 * "Unknown user" in his register (left out with `user_list_incomplete`),
 * are left out of `GET /users`, and `GET /users/{id}` refuses them.
 */
const test = withServer(['iago', 'hamlet']);
type T = ExecutionContext<Logins<'iago' | 'hamlet'>>;

interface User {
  user_id: number;
  full_name: string;
  email: string;
  is_bot: boolean;
  is_active?: boolean;
  avatar_url?: string | null;
}

const restrict = (t: T, on: boolean) =>
  expectOk(
    t.context.iago.patch('/realm', {
      can_access_all_users_group: JSON.stringify({
        new: SYSTEM_GROUPS[on ? 'role:members' : 'role:everyone'],
      }),
    }),
  );

/** A new guest in no channel at all. */
async function newGuest(t: T, name: string): Promise<Person> {
  const guest = await newPerson(t.context, name);
  await expectOk(t.context.iago.patch(`/users/${guest.user_id}`, { role: 600 }));
  const subs = await expectOk(guest.client.get<{ subscriptions: Array<{ name: string }> }>('/users/me/subscriptions'));
  if (subs.subscriptions.length > 0)
    await expectOk(
      guest.client.delete('/users/me/subscriptions', {
        subscriptions: JSON.stringify(subs.subscriptions.map((s) => s.name)),
      }),
    );
  return guest;
}

async function realmUsers(person: Person, capabilities: Body = {}): Promise<User[]> {
  const snapshot = await snapshotOf(person.client, {
    fetch_event_types: ['realm_user'],
    client_capabilities: capabilities,
  });
  return snapshot.realm_users as User[];
}

const byId = (users: User[], id: number) => users.find((u) => u.user_id === id);

/** Two queues of `realm_user` events: a plain client's, and one with `user_list_incomplete`. */
async function userQueues(client: Person['client']): Promise<{ plain: Queue; incomplete: Queue }> {
  const plain = await register(client, { event_types: ['realm_user'] });
  const incomplete = await register(client, {
    event_types: ['realm_user'],
    client_capabilities: JSON.stringify({ user_list_incomplete: true }),
  });
  return { plain, incomplete };
}

test.serial('with the setting at members, a guest sees only the users he shares a channel with', async (t) => {
  const guest = await newGuest(t, 'Restricted Guest');
  await restrict(t, true);
  try {
    const users = await realmUsers(guest);
    t.is(byId(users, guest.user_id)?.full_name, 'Restricted Guest', 'himself');
    const hamlet = byId(users, IDS.hamlet);
    t.like(hamlet, { full_name: 'Unknown user', is_active: true, is_bot: false, avatar_version: 1 } as Partial<User>);
    t.regex(hamlet!.email, new RegExp(`^user${IDS.hamlet}@`));
    // The placeholder avatar is a real image, served without credentials.
    const avatar = await fetch(new URL(hamlet!.avatar_url!, t.context.server.server.url));
    t.is(avatar.status, 200);
    t.is(avatar.headers.get('content-type'), 'image/png');
    const png = Buffer.from(await avatar.arrayBuffer());
    t.deepEqual([...png.subarray(1, 4)].map((c) => String.fromCharCode(c)).join(''), 'PNG');
    t.is(png.readUInt32BE(16), 100, 'its width, from the IHDR chunk');
    t.false(JSON.stringify(users).includes('hamlet@zulip.com'));
    t.false(JSON.stringify(users).includes('King Hamlet'));
    t.is(byId(await realmUsers(guest, { user_list_incomplete: true }), IDS.hamlet), undefined);
    const whole = await guest.client.post<Body>('/register', { fetch_event_types: JSON.stringify(['realm_user']) });
    t.deepEqual(checkResponse('post', '/register', 200, whole.body).errors, [], 'the reference’s shape');

    const listed = await expectOk(guest.client.get<{ members: User[] }>('/users'));
    t.is(byId(listed.members, IDS.hamlet), undefined);
    t.truthy(byId(listed.members, guest.user_id));
    const refused = await guest.client.get<Body>(`/users/${IDS.hamlet}`);
    t.is(refused.status, 400);
    t.like(refused.body, { result: 'error', code: 'BAD_REQUEST', msg: 'Insufficient permission' });

    // Hamlet and the guest now share a channel: he becomes accessible.
    await expectOk(
      t.context.iago.post('/users/me/subscriptions', {
        subscriptions: JSON.stringify([{ name: 'guest access room' }]),
        principals: JSON.stringify([guest.user_id, IDS.hamlet]),
      }),
    );
    t.is(byId(await realmUsers(guest), IDS.hamlet)?.full_name, 'King Hamlet');
    const got = await expectOk(guest.client.get<{ user: User }>(`/users/${IDS.hamlet}`));
    t.is(got.user.full_name, 'King Hamlet');
    t.truthy(byId((await expectOk(guest.client.get<{ members: User[] }>('/users'))).members, IDS.hamlet));
    // Othello shares nothing with him.
    t.is(byId(await realmUsers(guest), IDS.othello)?.full_name, 'Unknown user');
  } finally {
    await restrict(t, false);
  }
});

test.serial('members are unaffected, and with the setting off a guest sees everyone', async (t) => {
  const guest = await newGuest(t, 'Open Guest');
  await restrict(t, true);
  try {
    const member = await newPerson(t.context, 'Plain Member');
    const users = await realmUsers(member);
    t.false(users.some((u) => u.full_name === 'Unknown user'));
    t.is(byId(users, guest.user_id)?.full_name, 'Open Guest');
    t.is(byId(users, IDS.othello)?.full_name, 'Othello, the Moor of Venice');
  } finally {
    await restrict(t, false);
  }
  const users = await realmUsers(guest);
  t.false(users.some((u) => u.full_name === 'Unknown user'));
  t.is(byId(users, IDS.hamlet)?.full_name, 'King Hamlet');
  t.is((await guest.client.get(`/users/${IDS.hamlet}`)).status, 200);
});

test.serial('bots stay accessible to a restricted guest', async (t) => {
  const guest = await newGuest(t, 'Bot Seeing Guest');
  await expectOk(t.context.hamlet.post('/bots', { full_name: 'Access Bot', short_name: 'access' }));
  const everyone = await expectOk(t.context.hamlet.get<{ members: User[] }>('/users'));
  const bots = everyone.members.filter((u) => u.is_bot);
  await restrict(t, true);
  try {
    const users = await realmUsers(guest);
    for (const bot of bots) t.is(byId(users, bot.user_id)?.full_name, bot.full_name);
    t.true(bots.some((b) => b.full_name === 'Access Bot'));
  } finally {
    await restrict(t, false);
  }
});

test.serial('a guest hears of users as he gains and loses access to them', async (t) => {
  const guest = await newGuest(t, 'Hearing Guest');
  await restrict(t, true);
  try {
    await expectOk(
      t.context.iago.post('/users/me/subscriptions', {
        subscriptions: JSON.stringify([{ name: 'guest hearing room' }]),
        principals: JSON.stringify([guest.user_id]),
      }),
    );
    const queue = await register(guest.client, { event_types: ['realm_user', 'subscription'] });
    const about = (op: string) => (e: Event) =>
      e.type === 'realm_user' && e.op === op && (e.person as User).user_id === IDS.othello;
    // Someone subscribes to the guest's channel: the guest gains access to him, and hears of
    // him before the peer_add that names him, as the original sends them.
    await expectOk(
      t.context.iago.post('/users/me/subscriptions', {
        subscriptions: JSON.stringify([{ name: 'guest hearing room' }]),
        principals: JSON.stringify([IDS.othello]),
      }),
    );
    const peer = (e: Event) => e.type === 'subscription' && e.op === 'peer_add';
    const heard = await eventsUntil(queue, (e) => peer(e) || about('add')(e));
    t.deepEqual(
      heard.filter((e) => peer(e) || about('add')(e)).map((e) => `${e.type} ${e.op as string}`),
      ['realm_user add'],
      'the add comes first',
    );
    const added = heard.at(-1)!;
    t.like(added.person as User, { full_name: 'Othello, the Moor of Venice', is_bot: false });
    t.deepEqual(checkEvent(added).errors, []);
    t.deepEqual((await next(queue, peer)).user_ids, [IDS.othello]);
    // The guest leaves: he loses access, and hears of it with the placeholder name.
    await expectOk(
      guest.client.delete('/users/me/subscriptions', { subscriptions: JSON.stringify(['guest hearing room']) }),
    );
    const removed = await next(queue, about('remove'));
    t.deepEqual(removed.person, { user_id: IDS.othello, full_name: 'Unknown user' });
    t.is(queue.seen.filter(about('add')).length, 1, 'one add, not sent again after the subscription');
    t.deepEqual(checkEvent(removed).errors, []);
  } finally {
    await restrict(t, false);
  }
});

test.serial('an add and its remove that wait unpolled both reach the guest, in order, as sent', async (t) => {
  const guest = await newGuest(t, 'Waiting Guest');
  const visitor = await newPerson(t.context, 'Passing Visitor');
  await restrict(t, true);
  try {
    await expectOk(
      t.context.iago.post('/users/me/subscriptions', {
        subscriptions: JSON.stringify([{ name: 'guest waiting room' }]),
        principals: JSON.stringify([guest.user_id]),
      }),
    );
    const queues = [
      await register(guest.client, { event_types: ['realm_user'] }),
      await register(guest.client, {
        event_types: ['realm_user'],
        client_capabilities: { user_list_incomplete: true },
      }),
    ];
    // The visitor comes and goes before the guest polls: at his poll he no longer has access to him.
    const room = 'guest waiting room';
    await expectOk(visitor.client.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: room }]) }));
    await expectOk(visitor.client.delete('/users/me/subscriptions', { subscriptions: JSON.stringify([room]) }));
    const about = (e: Event) => e.type === 'realm_user' && (e.person as User).user_id === visitor.user_id;
    for (const queue of queues) {
      await next(queue, (e) => about(e) && e.op === 'remove');
      const heard = queue.seen.filter(about);
      t.deepEqual(
        heard.map((e) => [e.op, (e.person as User).full_name]),
        [
          ['add', 'Passing Visitor'],
          ['remove', 'Unknown user'],
        ],
      );
      t.false('access' in heard[0]!, 'no field of ours reaches the client');
    }
  } finally {
    await restrict(t, false);
  }
});

test.serial('with the setting off, a guest hears no access events', async (t) => {
  const guest = await newGuest(t, 'Deaf Guest');
  await expectOk(
    t.context.iago.post('/users/me/subscriptions', {
      subscriptions: JSON.stringify([{ name: 'open hearing room' }]),
      principals: JSON.stringify([guest.user_id]),
    }),
  );
  const queue = await register(guest.client, { event_types: ['realm_user'] });
  await expectOk(
    t.context.iago.post('/users/me/subscriptions', {
      subscriptions: JSON.stringify([{ name: 'open hearing room' }]),
      principals: JSON.stringify([IDS.othello]),
    }),
  );
  // A later change of his own name marks the end of what the subscription could have caused.
  await expectOk(guest.client.patch('/settings', { full_name: 'Deaf Guest Renamed' }));
  const seen = await eventsUntil(queue, (e) => e.type === 'realm_user' && e.op === 'update');
  t.deepEqual(
    seen.filter((e) => e.op !== 'update'),
    [],
  );
});

test.serial('a message from a user the guest may not access shows its sender as "Unknown user"', async (t) => {
  const guest = await newGuest(t, 'Reading Guest');
  const outsider = await newPerson(t.context, 'Outside Sender');
  await expectOk(
    t.context.iago.post('/users/me/subscriptions', {
      subscriptions: JSON.stringify([{ name: 'guest reading room' }]),
      principals: JSON.stringify([guest.user_id]),
    }),
  );
  // One not subscribed may still send to a public channel.
  const sent = await expectOk(
    outsider.client.post<{ id: number }>('/messages', {
      type: 'stream',
      to: 'guest reading room',
      topic: 'from outside',
      content: 'knock knock',
    }),
  );
  await restrict(t, true);
  try {
    const queue = await register(guest.client, { event_types: ['message', 'presence'] });
    await expectOk(
      outsider.client.post('/messages', { type: 'stream', to: 'guest reading room', topic: 'again', content: 'hi' }),
    );
    const event = await next(queue, (e) => e.type === 'message');
    t.like(event.message as Body, { sender_id: outsider.user_id, sender_full_name: 'Unknown user' });
    // His presence does not reach the guest; the guest's own does.
    await expectOk(outsider.client.post('/users/me/presence', { status: 'active' }));
    await expectOk(guest.client.post('/users/me/presence', { status: 'active' }));
    const seen = await eventsUntil(queue, (e) => e.type === 'presence' && e.user_id === guest.user_id);
    t.false(seen.some((e) => e.type === 'presence' && e.user_id === outsider.user_id));
    const { message } = await expectOk(guest.client.get<{ message: Body }>(`/messages/${sent.id}`));
    t.like(message, { sender_id: outsider.user_id, sender_full_name: 'Unknown user' });
    t.regex(message.sender_email as string, new RegExp(`^user${outsider.user_id}@`));
    t.false(JSON.stringify(message).includes('Outside Sender'));
    // A direct message makes its sender accessible, as in the original.
    await expectOk(
      t.context.hamlet.post('/messages', { type: 'private', to: JSON.stringify([guest.user_id]), content: 'hello' }),
    );
    t.is(byId(await realmUsers(guest), IDS.hamlet)?.full_name, 'King Hamlet');
    const member = await expectOk(
      t.context.hamlet.get<{ messages: Body[] }>('/messages', {
        anchor: 'newest',
        num_before: 5,
        num_after: 0,
        narrow: JSON.stringify([{ operator: 'channel', operand: 'guest reading room' }]),
      }),
    );
    t.true(
      member.messages.some((m) => m.sender_full_name === 'Outside Sender'),
      'members see the name',
    );
  } finally {
    await restrict(t, false);
  }
  const { message } = await expectOk(guest.client.get<{ message: Body }>(`/messages/${sent.id}`));
  t.is(message.sender_full_name, 'Outside Sender');
});

test.serial(
  'a new user the guest may not access reaches him as "Unknown user", or not at all with user_list_incomplete',
  async (t) => {
    const guest = await newGuest(t, 'Watching Guest');
    await restrict(t, true);
    try {
      const { plain, incomplete } = await userQueues(guest.client);
      const newcomer = await newPerson(t.context, 'Newcomer Unseen');
      const added = (e: Event) => e.type === 'realm_user' && e.op === 'add';
      const event = await next(plain, added);
      t.like(event.person as User, { user_id: newcomer.user_id, full_name: 'Unknown user', is_active: true });
      t.false(JSON.stringify(event).includes('Newcomer Unseen'));
      t.deepEqual(checkEvent(event).errors, []);
      // His own rename marks the end of what the creation could have caused.
      await expectOk(guest.client.patch('/settings', { full_name: 'Watching Guest Renamed' }));
      const seen = await eventsUntil(incomplete, (e) => e.type === 'realm_user' && e.op === 'update');
      t.deepEqual(seen.filter(added), []);
    } finally {
      await restrict(t, false);
    }
  },
);

test.serial('changes to a user the guest may not access do not reach him; a bot’s do', async (t) => {
  const guest = await newGuest(t, 'Quiet Guest');
  const stranger = await newPerson(t.context, 'Stranger Before');
  await restrict(t, true);
  try {
    const queue = await register(guest.client, { event_types: ['realm_user', 'realm_bot'] });
    await expectOk(stranger.client.patch('/settings', { full_name: 'Stranger After' }));
    const bot = await expectOk(
      t.context.hamlet.post<{ user_id: number }>('/bots', { full_name: 'Quiet Bot', short_name: 'quiet' }),
    );
    await expectOk(t.context.hamlet.patch(`/bots/${bot.user_id}`, { full_name: 'Quiet Bot Renamed' }));
    await expectOk(guest.client.patch('/settings', { full_name: 'Quiet Guest Renamed' }));
    const seen = await eventsUntil(
      queue,
      (e) => e.type === 'realm_user' && e.op === 'update' && (e.person as User).user_id === guest.user_id,
    );
    t.false(JSON.stringify(seen).includes('Stranger After'));
    t.true(
      seen.some((e) => e.type === 'realm_user' && (e.person as User).full_name === 'Quiet Bot Renamed'),
      'the bot’s rename',
    );
  } finally {
    await restrict(t, false);
  }
});

test.serial('a user the guest may not access: his presence and status are refused or left out', async (t) => {
  const guest = await newGuest(t, 'Asking Guest');
  const stranger = await newPerson(t.context, 'Present Stranger');
  await expectOk(stranger.client.post('/users/me/presence', { status: 'active' }));
  await expectOk(stranger.client.post('/users/me/status', { status_text: 'around' }));
  await restrict(t, true);
  try {
    for (const path of [
      `/users/${stranger.user_id}/presence`,
      `/users/${stranger.email}/presence`,
      `/users/${stranger.user_id}/status`,
    ]) {
      const reply = await guest.client.get<Body>(path);
      t.like(reply.body, { result: 'error', msg: 'Insufficient permission' }, path);
    }
    const realm = await expectOk(guest.client.get<{ presences: Body }>('/realm/presence'));
    t.false(JSON.stringify(realm.presences).includes(stranger.email));
    const own = await expectOk(
      guest.client.post<{ presences: Body }>('/users/me/presence', { status: 'active', slim_presence: true }),
    );
    t.false(String(stranger.user_id) in own.presences);
    t.true(String(guest.user_id) in own.presences, 'his own is there');
  } finally {
    await restrict(t, false);
  }
  const open = await expectOk(guest.client.get<{ presences: Body }>('/realm/presence'));
  t.true(JSON.stringify(open.presences).includes(stranger.email), 'with the setting off it is there');
  t.is((await guest.client.get(`/users/${stranger.user_id}/status`)).status, 200);
});

test.serial('a guest may not start a direct message with a user he may not access', async (t) => {
  const guest = await newGuest(t, 'Writing Guest');
  const stranger = await newPerson(t.context, 'Unwritten Stranger');
  await restrict(t, true);
  try {
    const refused = await guest.client.post<Body>('/messages', {
      type: 'direct',
      to: JSON.stringify([stranger.user_id]),
      content: 'hello?',
    });
    t.is(refused.status, 400);
    t.like(refused.body, {
      result: 'error',
      code: 'BAD_REQUEST',
      msg: 'You do not have permission to access some of the recipients.',
    });
    // Once the stranger wrote to him, he may answer; he first hears of the stranger, then of the message.
    const queue = await register(guest.client, { event_types: ['realm_user', 'message'] });
    await expectOk(
      stranger.client.post('/messages', { type: 'direct', to: JSON.stringify([guest.user_id]), content: 'hi' }),
    );
    const seen = await eventsUntil(queue, (e) => e.type === 'message');
    const added = seen.find((e) => e.type === 'realm_user' && e.op === 'add');
    t.like(added?.person as User, { user_id: stranger.user_id, full_name: 'Unwritten Stranger' });
    t.like(seen.at(-1)?.message as Body, { sender_full_name: 'Unwritten Stranger' });
    await expectOk(
      guest.client.post('/messages', { type: 'direct', to: JSON.stringify([stranger.user_id]), content: 'hi back' }),
    );
  } finally {
    await restrict(t, false);
  }
});

test.serial(
  'a scheduled direct message from a user the guest may not access first tells him of its sender',
  async (t) => {
    const guest = await newGuest(t, 'Scheduled Guest');
    const stranger = await newPerson(t.context, 'Scheduling Stranger');
    await restrict(t, true);
    try {
      const queue = await register(guest.client, { event_types: ['realm_user', 'message'] });
      await expectOk(
        stranger.client.post('/scheduled_messages', {
          type: 'direct',
          to: JSON.stringify([guest.user_id]),
          content: 'later hi',
          scheduled_delivery_timestamp: Math.floor(Date.now() / 1000) + 2,
        }),
      );
      // When due, as a direct send: the add of the stranger, then the message.
      const seen = await eventsUntil(queue, (e) => e.type === 'message');
      const added = seen.filter((e) => e.type === 'realm_user' && e.op === 'add');
      t.is(added.length, 1);
      t.like(added[0]?.person as User, { user_id: stranger.user_id, full_name: 'Scheduling Stranger' });
      t.like(seen.at(-1)?.message as Body, { sender_full_name: 'Scheduling Stranger' });
    } finally {
      await restrict(t, false);
    }
  },
);

test.serial('a channel created with the guest among its subscribers gives him access to the others', async (t) => {
  const guest = await newGuest(t, 'Founding Guest');
  await restrict(t, true);
  try {
    const queue = await register(guest.client, { event_types: ['realm_user'] });
    await expectOk(
      t.context.iago.post('/channels/create', { name: 'founded room', subscribers: [guest.user_id, IDS.prospero] }),
    );
    const added = await next(
      queue,
      (e) => e.type === 'realm_user' && e.op === 'add' && (e.person as User).user_id === IDS.prospero,
    );
    t.is((added.person as User).full_name, 'Prospero from The Tempest');
  } finally {
    await restrict(t, false);
  }
});

test.serial('typing of a user the guest may not access reaches him, as in the original', async (t) => {
  // The original's typing notifications ignore user access: a channel's typing goes to its
  // subscribers, a direct one to its recipients (zerver/actions/typing.py).
  const guest = await newGuest(t, 'Typing Guest');
  const outsider = await newPerson(t.context, 'Typing Outsider');
  await expectOk(
    t.context.iago.post('/users/me/subscriptions', {
      subscriptions: JSON.stringify([{ name: 'guest typing room' }]),
      principals: JSON.stringify([guest.user_id]),
    }),
  );
  const room = await expectOk(
    guest.client.get<{ stream_id: number }>('/get_stream_id', { stream: 'guest typing room' }),
  );
  await restrict(t, true);
  try {
    const queue = await register(guest.client, {
      event_types: ['typing'],
      client_capabilities: { stream_typing_notifications: true },
    });
    await expectOk(
      outsider.client.post('/typing', { type: 'channel', op: 'start', stream_id: room.stream_id, topic: 't' }),
    );
    const inChannel = await next(queue, (e) => e.type === 'typing');
    t.like(inChannel, { message_type: 'stream', stream_id: room.stream_id });
    t.is((inChannel.sender as { user_id: number }).user_id, outsider.user_id);
    await expectOk(outsider.client.post('/typing', { op: 'start', to: JSON.stringify([guest.user_id]) }));
    const direct = await next(queue, (e) => e.type === 'typing' && e.message_type === 'direct');
    t.is((direct.sender as { user_id: number }).user_id, outsider.user_id);
  } finally {
    await restrict(t, false);
  }
});

test.serial('a deactivated user the guest knew through a channel only becomes "Unknown user" to him', async (t) => {
  const guest = await newGuest(t, 'Mourning Guest');
  const peer = await newPerson(t.context, 'Leaving Peer');
  const partner = await newPerson(t.context, 'Leaving Partner');
  await expectOk(
    t.context.iago.post('/users/me/subscriptions', {
      subscriptions: JSON.stringify([{ name: 'guest leaving room' }]),
      principals: JSON.stringify([guest.user_id, peer.user_id, partner.user_id]),
    }),
  );
  await expectOk(
    partner.client.post('/messages', { type: 'direct', to: JSON.stringify([guest.user_id]), content: 'hi' }),
  );
  await restrict(t, true);
  try {
    const queue = await register(guest.client, { event_types: ['realm_user'] });
    await expectOk(t.context.iago.delete(`/users/${peer.user_id}`));
    await expectOk(t.context.iago.delete(`/users/${partner.user_id}`));
    await expectOk(guest.client.patch('/settings', { full_name: 'Mourning Guest Renamed' }));
    const seen = await eventsUntil(
      queue,
      (e) => e.type === 'realm_user' && e.op === 'update' && (e.person as User).user_id === guest.user_id,
    );
    const about = (id: number) => seen.filter((e) => (e.person as User).user_id === id);
    // The channel was his only link to the peer: a remove, no update.
    t.deepEqual(
      about(peer.user_id).map((e) => [e.op, e.person]),
      [['remove', { user_id: peer.user_id, full_name: 'Unknown user' }]],
    );
    for (const e of about(peer.user_id)) t.deepEqual(checkEvent(e).errors, []);
    // A direct-message partner stays accessible: the update.
    t.deepEqual(
      about(partner.user_id).map((e) => [e.op, e.person]),
      [['update', { user_id: partner.user_id, is_active: false }]],
    );
    // Reactivated, the peer's channel gives access again: the original sends only the update (no add).
    await expectOk(t.context.iago.post(`/users/${peer.user_id}/reactivate`));
    await expectOk(guest.client.patch('/settings', { full_name: 'Mourning Guest Again' }));
    const later = await eventsUntil(
      queue,
      (e) => e.type === 'realm_user' && (e.person as User).full_name === 'Mourning Guest Again',
    );
    t.deepEqual(
      later
        .slice(seen.length)
        .filter((e) => (e.person as User).user_id === peer.user_id)
        .map((e) => [e.op, e.person]),
      [['update', { user_id: peer.user_id, is_active: true }]],
    );
  } finally {
    await restrict(t, false);
    for (const id of [peer.user_id, partner.user_id]) await t.context.iago.post(`/users/${id}/reactivate`);
  }
});

test.serial('an invited user who joins the guest’s channel on accepting reaches him as a person', async (t) => {
  const guest = await newGuest(t, 'Welcoming Guest');
  await expectOk(
    t.context.iago.post('/users/me/subscriptions', {
      subscriptions: JSON.stringify([{ name: 'guest invite room' }]),
      principals: JSON.stringify([guest.user_id]),
    }),
  );
  const room = await expectOk(
    guest.client.get<{ stream_id: number }>('/get_stream_id', { stream: 'guest invite room' }),
  );
  await restrict(t, true);
  try {
    const address = `invited-${Date.now()}@example.com`;
    await expectOk(
      t.context.iago.post('/invites', { invitee_emails: address, stream_ids: JSON.stringify([room.stream_id]) }),
    );
    const queue = await register(guest.client, { event_types: ['realm_user', 'subscription'] });
    const link = linkIn((await mailsTo(t.context.server, address))[0], '/join/');
    t.is((await postForm(link, { full_name: 'Invited Joiner', password: 'long enough' })).status, 200);
    // His own rename marks the end of what joining could have caused.
    await expectOk(guest.client.patch('/settings', { full_name: 'Welcoming Guest Renamed' }));
    const seen = await eventsUntil(
      queue,
      (e) => e.type === 'realm_user' && e.op === 'update' && (e.person as User).user_id === guest.user_id,
    );
    const joiner = seen.filter((e) => e.op === 'add' && (e.person as User).user_id !== guest.user_id);
    // The creation's add, judged as at the creation ("Unknown user"), then the access add of the person.
    t.deepEqual(
      joiner.map((e) => (e.person as User).full_name),
      ['Unknown user', 'Invited Joiner'],
    );
    t.is((joiner[1]!.person as User).full_name, 'Invited Joiner');
    t.deepEqual(checkEvent(joiner[1]!).errors, []);
    // The person comes before the peer_add that names him.
    const peer = seen.findIndex((e) => e.op === 'peer_add');
    t.true(peer > seen.indexOf(joiner[1]!), seen.map((e) => `${e.type} ${e.op as string}`).join(', '));
  } finally {
    await restrict(t, false);
  }
});

/** The names of the `realm_user` adds of `newcomer` a queue of `guest` has, up to his own rename. */
async function addsUntilRenamed(queue: Queue, guest: Person, newcomer: Person): Promise<string[]> {
  const renamed = (e: Event) =>
    e.type === 'realm_user' && e.op === 'update' && (e.person as User).user_id === guest.user_id;
  return (await eventsUntil(queue, renamed))
    .filter((e) => e.op === 'add' && (e.person as User).user_id === newcomer.user_id)
    .map((e) => (e.person as User).full_name);
}

test.serial('a new user who joins the guest’s channel before he polls is added once, as a person', async (t) => {
  const guest = await newGuest(t, 'Early Guest');
  await expectOk(
    t.context.iago.post('/users/me/subscriptions', {
      subscriptions: JSON.stringify([{ name: 'guest early room' }]),
      principals: JSON.stringify([guest.user_id]),
    }),
  );
  await restrict(t, true);
  try {
    const { plain, incomplete } = await userQueues(guest.client);
    const newcomer = await newPerson(t.context, 'Early Joiner');
    await expectOk(
      newcomer.client.post('/users/me/subscriptions', {
        subscriptions: JSON.stringify([{ name: 'guest early room' }]),
      }),
    );
    // His own rename marks the end of what the creation and the join could have caused.
    await expectOk(guest.client.patch('/settings', { full_name: 'Early Guest Renamed' }));
    const adds = (queue: Queue) => addsUntilRenamed(queue, guest, newcomer);
    // The creation's add is judged as at the creation, when he had no access (the original's notify_created_user).
    t.deepEqual(await adds(incomplete), ['Early Joiner']);
    t.deepEqual(await adds(plain), ['Unknown user', 'Early Joiner']);
  } finally {
    await restrict(t, false);
  }
});

test.serial(
  'two restricted guests’ scheduled direct messages to each other, due together, both arrive promptly',
  async (t) => {
    const [a, b] = await Promise.all([newGuest(t, 'Pair Guest A'), newGuest(t, 'Pair Guest B')]);
    await expectOk(
      t.context.iago.post('/users/me/subscriptions', {
        subscriptions: JSON.stringify([{ name: 'guest pair room' }]),
        principals: JSON.stringify([a.user_id, b.user_id]),
      }),
    );
    await restrict(t, true);
    try {
      const queues = await Promise.all([a, b].map((g) => register(g.client, { event_types: ['message'] })));
      const room = await expectOk(a.client.get<{ stream_id: number }>('/get_stream_id', { stream: 'guest pair room' }));
      const due = Math.floor(Date.now() / 1000) + 4;
      const schedule = (from: Person, params: Body) =>
        expectOk(
          from.client.post('/scheduled_messages', {
            ...params,
            content: 'due together',
            scheduled_delivery_timestamp: due,
          }),
        );
      // Three channel messages first keep each timer busy, so each one's direct message finds the other's timer
      // running: with a UserActor asked from a timer, each waits on the other until the ask's timeout (10 s).
      await Promise.all(
        [
          [a, b],
          [b, a],
        ].map(async ([from, to]) => {
          for (let i = 0; i < 3; i++) await schedule(from!, { type: 'stream', to: room.stream_id, topic: 'pair' });
          await schedule(from!, { type: 'direct', to: JSON.stringify([to!.user_id]) });
        }),
      );
      const direct = (queue: Queue) =>
        queue.seen.filter((e) => e.type === 'message' && (e.message as Body).type === 'private').length;
      const bothDirect = async (queue: Queue) => {
        while (direct(queue) < 2 && Date.now() < due * 1000 + 25_000) await poll(queue);
      };
      await Promise.all(queues.map(bothDirect));
      const late = Date.now() - due * 1000;
      t.deepEqual(queues.map(direct), [2, 2]);
      t.true(late < 8000, `the last message came ${late} ms after it was due`);
    } finally {
      await restrict(t, false);
    }
  },
);

test.serial(
  'a new account’s add is judged by the setting at its creation, not by the setting at the poll',
  async (t) => {
    const guest = await newGuest(t, 'Judging Guest');
    /** The adds of an account made with the setting `atCreation`, polled once the setting is `atPoll`. */
    const addsOf = async (name: string, atCreation: boolean, atPoll: boolean) => {
      await restrict(t, atCreation);
      const { plain, incomplete } = await userQueues(guest.client);
      const newcomer = await newPerson(t.context, name);
      await restrict(t, atPoll);
      // His own rename marks the end of what the creation could have caused.
      await expectOk(guest.client.patch('/settings', { full_name: `Judging Guest ${name}` }));
      return {
        plain: await addsUntilRenamed(plain, guest, newcomer),
        incomplete: await addsUntilRenamed(incomplete, guest, newcomer),
      };
    };
    try {
      // As the original's notify_created_user: a restricted guest could access no new human at its creation.
      t.deepEqual(await addsOf('Made Restricted', true, false), { plain: ['Unknown user'], incomplete: [] });
      t.deepEqual(await addsOf('Made Open', false, true), { plain: ['Made Open'], incomplete: ['Made Open'] });
    } finally {
      await restrict(t, false);
    }
  },
);

test.serial('a guest who leaves his channel may list users and register while his own list catches up', async (t) => {
  const guest = await newGuest(t, 'Leaving Guest');
  const peer = await newPerson(t.context, 'Left Peer');
  await expectOk(
    t.context.iago.post('/users/me/subscriptions', {
      subscriptions: JSON.stringify([{ name: 'guest left room' }]),
      principals: JSON.stringify([guest.user_id, peer.user_id]),
    }),
  );
  await restrict(t, true);
  try {
    // The channel forgets him before his UserActor hears of it: requests in flight meanwhile still
    // find the channel on his list, and the channel refuses him its subscribers. It shares no one.
    // Each loop asks until one of its requests started after the leave was answered.
    let left = false;
    const replies: Array<{ status: number; msg?: string; peer?: boolean }> = [];
    const ask = async (i: number) => {
      for (;;) {
        const afterLeave = left;
        if (i % 2 === 0) {
          const reply = await guest.client.get<{ msg?: string; members?: User[] }>('/users');
          const sees = reply.body.members?.some((u) => u.user_id === peer.user_id);
          replies.push({ status: reply.status, msg: reply.body.msg, ...(afterLeave ? { peer: sees } : {}) });
        } else {
          const reply = await guest.client.post<{ msg?: string }>('/register', {
            fetch_event_types: JSON.stringify(['realm_user']),
          });
          replies.push({ status: reply.status, msg: reply.body.msg });
        }
        if (afterLeave) return;
      }
    };
    const asking = Array.from({ length: 8 }, (_, i) => ask(i));
    await expectOk(
      guest.client.delete('/users/me/subscriptions', { subscriptions: JSON.stringify(['guest left room']) }),
    );
    left = true;
    await Promise.all(asking);
    t.deepEqual(
      replies.filter((r) => r.status !== 200),
      [],
    );
    // Asked once he had left, the list no longer has the peer, whatever his own list said then.
    t.deepEqual(
      replies.filter((r) => r.peer === true),
      [],
    );
    t.is(replies.filter((r) => r.peer === false).length, 4);
  } finally {
    await restrict(t, false);
  }
});
