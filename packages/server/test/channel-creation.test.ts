import { SYSTEM_GROUPS } from '@chat/protocol';
import { IDS, withServer } from './context.js';
import { newPerson, type Person } from './people.js';
import { absentBefore, next, register, snapshotOf, type Body } from './queues.js';
import { bodyOf, fails, refused, succeeds } from './replies.js';

/**
 * A new channel's permissions, as `POST /users/me/subscriptions` and
 * `POST /channels/create` take them (the original's add_subscriptions_backend
 * and list_to_streams): the defaults, the group-setting values and their
 * checks, who may open message deletion; and the rules of `PATCH /streams/{id}`
 * and `GET /streams` that go with them.
 */
const test = withServer(['iago', 'shiva']);

const { 'role:internet': internet, 'role:everyone': everyone, 'role:nobody': nobody } = SYSTEM_GROUPS;
const { 'role:moderators': moderators, 'role:administrators': administrators } = SYSTEM_GROUPS;

const PERMISSIONS = [
  'can_add_subscribers_group',
  'can_remove_subscribers_group',
  'can_administer_channel_group',
  'can_delete_any_message_group',
  'can_delete_own_message_group',
  'can_move_messages_out_of_channel_group',
  'can_move_messages_within_channel_group',
  'can_send_message_group',
  'can_subscribe_group',
  'can_resolve_topics_group',
] as const;

let made = 0;
const unique = (what: string) => `${what} ${++made} ${Date.now() % 100000}`;

/** Creates a channel by `POST /channels/create` with these settings; its id. */
async function create(who: Person, name: string, settings: Body = {}): Promise<number> {
  const params = { name, subscribers: [who.user_id], ...settings };
  return (await succeeds<{ id: number }>('POST', '/channels/create', who.client.post('/channels/create', params))).id;
}

async function streamOf(who: Person, id: number): Promise<Body> {
  return (await succeeds<{ stream: Body }>('GET', `/streams/${id}`, who.client.get(`/streams/${id}`))).stream;
}

const permissionsOf = (stream: Body) => Object.fromEntries(PERMISSIONS.map((name) => [name, stream[name]]));

test('a channel created without permissions has the original defaults, in the event, GET /streams and the register', async (t) => {
  const alice = await newPerson(t.context, 'Alice Defaults');
  const queue = await register(alice.client, { event_types: ['stream'] });
  const name = unique('defaults');
  await bodyOf(alice.client.post('/users/me/subscriptions', { subscriptions: [{ name }] }));
  const event = await next(queue, (e) => e.op === 'create' && (e.streams as Body[]).some((s) => s.name === name));
  const created = (event.streams as Body[]).find((s) => s.name === name)!;
  const expected = {
    can_add_subscribers_group: nobody,
    can_remove_subscribers_group: administrators,
    can_administer_channel_group: { direct_members: [alice.user_id], direct_subgroups: [] },
    can_delete_any_message_group: nobody,
    can_delete_own_message_group: nobody,
    can_move_messages_out_of_channel_group: nobody,
    can_move_messages_within_channel_group: nobody,
    can_send_message_group: everyone,
    can_subscribe_group: nobody,
    can_resolve_topics_group: nobody,
  };
  t.deepEqual(permissionsOf(created), expected);
  t.deepEqual(permissionsOf(await streamOf(alice, created.stream_id as number)), expected);
  const listed = await succeeds<{ streams: Body[] }>('GET', '/streams', alice.client.get('/streams'));
  t.deepEqual(permissionsOf(listed.streams.find((s) => s.name === name)!), expected);
  const snapshot = await snapshotOf(alice.client, { fetch_event_types: ['subscription'] });
  const subscription = (snapshot.subscriptions as Body[]).find((s) => s.name === name)!;
  t.deepEqual(permissionsOf(subscription), expected);
});

test('each permission takes a group id or an anonymous group, in canonical form, on both ways of creating', async (t) => {
  const alice = await newPerson(t.context, 'Alice Values');
  const bob = await newPerson(t.context, 'Bob Values');
  const given = {
    can_add_subscribers_group: { direct_members: [bob.user_id], direct_subgroups: [moderators] },
    can_remove_subscribers_group: { direct_members: [], direct_subgroups: [moderators] },
    can_administer_channel_group: { direct_members: [bob.user_id, alice.user_id], direct_subgroups: [] },
    can_delete_any_message_group: nobody,
    can_delete_own_message_group: { direct_members: [], direct_subgroups: [] },
    can_move_messages_out_of_channel_group: moderators,
    can_move_messages_within_channel_group: everyone,
    can_send_message_group: administrators,
    can_subscribe_group: moderators,
    can_resolve_topics_group: everyone,
  };
  const expected = {
    ...given,
    // One subgroup and no members is that group; no one at all is role:nobody.
    can_remove_subscribers_group: moderators,
    can_administer_channel_group: {
      direct_members: [alice.user_id, bob.user_id].sort((a, b) => a - b),
      direct_subgroups: [],
    },
    can_delete_own_message_group: nobody,
  };
  const id = await create(alice, unique('values'), given);
  t.deepEqual(permissionsOf(await streamOf(alice, id)), expected);
  const name = unique('values by subscribing');
  await bodyOf(alice.client.post('/users/me/subscriptions', { subscriptions: [{ name }], ...given }));
  const other = (await bodyOf<{ stream_id: number }>(alice.client.get('/get_stream_id', { stream: name }))).stream_id;
  t.deepEqual(permissionsOf(await streamOf(alice, other)), expected);
  // The values rule: only administrators may post, so the creator may not.
  const send = { type: 'stream', to: id, topic: 'hello', content: 'hi' };
  await refused(t, alice.client.post('/messages', send), 'You do not have permission to post in this channel.');
  await bodyOf(t.context.iago.post('/messages', send));
});

test('values the original refuses are refused with its words, and nothing is created', async (t) => {
  const alice = await newPerson(t.context, 'Alice Refused');
  const tries: Array<[Body, string]> = [
    [{ can_send_message_group: internet }, "'can_send_message_group' setting cannot be set to 'role:internet' group."],
    [
      { can_resolve_topics_group: internet },
      "'can_resolve_topics_group' setting cannot be set to 'role:internet' group.",
    ],
    [{ can_subscribe_group: everyone }, "'can_subscribe_group' setting cannot be set to 'role:everyone' group."],
    [
      { can_add_subscribers_group: everyone },
      "'can_add_subscribers_group' setting cannot be set to 'role:everyone' group.",
    ],
    [
      { can_administer_channel_group: { direct_members: [], direct_subgroups: [everyone] } },
      "'can_administer_channel_group' setting cannot be set to 'role:everyone' group.",
    ],
    [{ can_send_message_group: 99999 }, 'Invalid user group'],
    [{ can_send_message_group: { direct_members: [99999], direct_subgroups: [] } }, 'Invalid user ID: 99999'],
    [
      { can_send_message_group: { direct_members: [alice.user_id], direct_subgroups: [99999] } },
      'Invalid user group ID: 99999',
    ],
  ];
  for (const [settings, msg] of tries) {
    const name = unique('refused');
    await refused(t, alice.client.post('/channels/create', { name, subscribers: [alice.user_id], ...settings }), msg);
    await refused(t, alice.client.post('/users/me/subscriptions', { subscriptions: [{ name }], ...settings }), msg);
    await refused(t, alice.client.get('/get_stream_id', { stream: name }), `Invalid channel name '${name}'`);
  }
  // Role:everyone is fine where the original allows it.
  await create(alice, unique('everyone may'), { can_move_messages_within_channel_group: everyone });
  // Values are checked only when a channel is created: subscribing to an existing one ignores them.
  await bodyOf(
    alice.client.post('/users/me/subscriptions', {
      subscriptions: [{ name: 'Denmark' }],
      can_send_message_group: 99999,
    }),
  );
});

test.serial(
  'only can_set_delete_message_policy_group (moderators by default) may let anyone delete at creation',
  async (t) => {
    const alice = await newPerson(t.context, 'Alice Deleting');
    const open = { can_delete_own_message_group: everyone };
    const name = unique('deleting');
    await refused(
      t,
      alice.client.post('/channels/create', { name, subscribers: [alice.user_id], ...open }),
      'Insufficient permission',
    );
    await refused(
      t,
      alice.client.post('/users/me/subscriptions', {
        subscriptions: [{ name }],
        can_delete_any_message_group: moderators,
      }),
      'Insufficient permission',
    );
    // role:nobody, the default, is anyone's to give.
    await create(alice, unique('deleting nobody'), {
      can_delete_own_message_group: { direct_members: [], direct_subgroups: [] },
    });
    // A moderator may.
    const shiva = { client: t.context.shiva, user_id: IDS.shiva } as Person;
    const byShiva = await create(shiva, unique('deleting by shiva'), open);
    t.is((await streamOf(shiva, byShiva)).can_delete_own_message_group, everyone);
    const policy = (value: number) =>
      bodyOf(t.context.iago.patch('/realm', { can_set_delete_message_policy_group: { new: value } }));
    await policy(SYSTEM_GROUPS['role:members']);
    try {
      const id = await create(alice, unique('deleting by members'), open);
      t.is((await streamOf(alice, id)).can_delete_own_message_group, everyone);
    } finally {
      await policy(moderators);
    }
    await refused(
      t,
      alice.client.post('/channels/create', { name, subscribers: [alice.user_id], ...open }),
      'Insufficient permission',
    );
  },
);

test('PATCH /streams/{id} holds to the same rules, after the caller is found to administer the channel', async (t) => {
  const alice = await newPerson(t.context, 'Alice Patching');
  const bob = await newPerson(t.context, 'Bob Patching');
  const id = await create(alice, unique('patching'));
  const path = `/streams/${id}`;
  const change = (value: unknown, old?: unknown) =>
    JSON.stringify(old === undefined ? { new: value } : { new: value, old });
  await refused(
    t,
    alice.client.patch(path, { can_subscribe_group: change(everyone) }),
    "'can_subscribe_group' setting cannot be set to 'role:everyone' group.",
  );
  await refused(
    t,
    alice.client.patch(path, { can_send_message_group: change(internet) }),
    "'can_send_message_group' setting cannot be set to 'role:internet' group.",
  );
  // Someone who may not administer it hears that first, whatever the value.
  await refused(
    t,
    bob.client.patch(path, { can_subscribe_group: change(everyone) }),
    'You do not have permission to administer this channel.',
  );
  // An anonymous group of no one is role:nobody, also as the expected old value.
  await bodyOf(
    alice.client.patch(path, { can_send_message_group: change({ direct_members: [], direct_subgroups: [] }) }),
  );
  t.is((await streamOf(alice, id)).can_send_message_group, nobody);
  await bodyOf(
    alice.client.patch(path, {
      can_send_message_group: change(everyone, { direct_members: [], direct_subgroups: [] }),
    }),
  );
  t.is((await streamOf(alice, id)).can_send_message_group, everyone);
});

test.serial('the moderation request channel cannot be made public', async (t) => {
  const { iago } = t.context;
  const iagoPerson = { client: iago, user_id: IDS.iago } as Person;
  const id = await create(iagoPerson, unique('moderation'), { invite_only: true });
  const setting = (value: number) => bodyOf(iago.patch('/realm', { moderation_request_channel_id: value }));
  await setting(id);
  try {
    await fails(
      t,
      iago.patch(`/streams/${id}`, { is_private: false }),
      'BAD_REQUEST',
      'A moderation request channel cannot be public.',
      ['PATCH', `/streams/${id}`],
    );
    await refused(
      t,
      iago.patch(`/streams/${id}`, { is_private: false, is_web_public: true }),
      'A moderation request channel cannot be public.',
    );
    t.true((await streamOf(iagoPerson, id)).invite_only as boolean);
    await bodyOf(iago.patch(`/streams/${id}`, { description: 'still private' }));
  } finally {
    await setting(-1);
  }
  await bodyOf(iago.patch(`/streams/${id}`, { is_private: false }));
});

test('GET /streams takes include_all_active as the original: true means include_all', async (t) => {
  const alice = await newPerson(t.context, 'Alice Hidden');
  const id = await create(alice, unique('hidden'), { invite_only: true });
  const listed = async (params: Body) =>
    (await succeeds<{ streams: Body[] }>('GET', '/streams', t.context.iago.get('/streams', params))).streams.some(
      (s) => s.stream_id === id,
    );
  t.false(await listed({}));
  t.true(await listed({ include_all: true }));
  t.true(await listed({ include_all_active: true }));
  t.true(await listed({ include_all: false, include_all_active: true }));
  t.false(await listed({ include_all_active: false }));
});

test('parameters the original requires, though the reference does not say so, are missing with its words', async (t) => {
  const { iago } = t.context;
  const missing = (name: string) => `Missing '${name}' argument`;
  await fails(
    t,
    iago.post('/reminders', { scheduled_delivery_timestamp: 4102444800 }),
    'REQUEST_VARIABLE_MISSING',
    missing('message_id'),
  );
  await fails(
    t,
    iago.post('/reminders', { message_id: 1 }),
    'REQUEST_VARIABLE_MISSING',
    missing('scheduled_delivery_timestamp'),
  );
  await fails(
    t,
    iago.post('/channel_folders/create', { description: 'no name' }),
    'REQUEST_VARIABLE_MISSING',
    missing('name'),
  );
  await fails(t, iago.patch('/channel_folders', {}), 'REQUEST_VARIABLE_MISSING', missing('order'));
});

interface Message {
  id: number;
  content: string;
  subject: string;
  sender_email: string;
  flags: string[];
}

/** The messages of a channel as `who` sees them, raw Markdown, oldest first. */
async function messagesIn(who: Person, channelId: number): Promise<Message[]> {
  const params = {
    anchor: 'newest',
    num_before: 10,
    num_after: 0,
    narrow: [{ operator: 'channel', operand: channelId }],
    apply_markdown: false,
    allow_empty_topic_name: true,
  };
  return (await succeeds<{ messages: Message[] }>('GET', '/messages', who.client.get('/messages', params))).messages;
}

test("each new channel opens with the notification bot's notice of its kind, read for its creator", async (t) => {
  const alice = await newPerson(t.context, 'Alice Notice');
  const bob = await newPerson(t.context, 'Bob Notice');
  const who = `@_**Alice Notice|${alice.user_id}**`;
  const notice = (kind: string, description: string) =>
    `**${kind}** channel created by ${who}. **Description:**\n\`\`\`\` quote\n${description}\n\`\`\`\``;
  const kinds: Array<[Body, string]> = [
    [{}, 'Public'],
    [{ invite_only: true }, 'Private, protected history'],
    [{ invite_only: true, history_public_to_subscribers: true }, 'Private, shared history'],
  ];
  for (const [settings, kind] of kinds) {
    const id = await create(alice, unique('notice'), { ...settings, subscribers: [alice.user_id, bob.user_id] });
    const [first, ...rest] = await messagesIn(bob, id);
    t.deepEqual(rest, []);
    t.like(first, { subject: 'channel events', sender_email: 'notification-bot@zulip.com' });
    t.is(first!.content, notice(kind, '*No description.*'));
    t.false(first!.flags.includes('read'));
    t.true((await messagesIn(alice, id))[0]!.flags.includes('read'));
  }
  const name = unique('notice by subscribing');
  const description = 'A room of its own';
  await bodyOf(alice.client.post('/users/me/subscriptions', { subscriptions: [{ name, description }] }));
  const id = (await bodyOf<{ stream_id: number }>(alice.client.get('/get_stream_id', { stream: name }))).stream_id;
  t.is((await messagesIn(alice, id))[0]!.content, notice('Public', description));
  // A channel of the general chat only has it there.
  const general = await create(alice, unique('notice general'), { topics_policy: 'empty_topic_only' });
  t.is((await messagesIn(alice, general))[0]!.subject, '');
});

test("the new channel's notice arrives read for its creator, in the message event, with no flags event", async (t) => {
  const alice = await newPerson(t.context, 'Alice Read Notice');
  const bob = await newPerson(t.context, 'Bob Read Notice');
  const queues = await Promise.all(
    [alice, bob].map((p) => register(p.client, { event_types: ['message', 'update_message_flags'] })),
  );
  const id = await create(alice, unique('read notice'), { subscribers: [alice.user_id, bob.user_id] });
  const notice = (e: Body) => e.type === 'message' && (e.message as Body).stream_id === id;
  const [mine, his] = await Promise.all(queues.map((q) => next(q, notice)));
  t.true((mine!.flags as string[]).includes('read'));
  t.false((his!.flags as string[]).includes('read'));
  const messageId = (mine!.message as Body).id as number;
  // Starring it raises a flags event on the same path, after any the creation raised.
  await bodyOf(alice.client.post('/messages/flags', { messages: [messageId], op: 'add', flag: 'starred' }));
  const starred = (e: Body) => e.type === 'update_message_flags' && e.flag === 'starred';
  t.true(await absentBefore(queues[0]!, starred, (e) => e.type === 'update_message_flags' && e.flag === 'read'));
  t.true((await messagesIn(alice, id))[0]!.flags.includes('read'));
  t.false((await messagesIn(bob, id))[0]!.flags.includes('read'));
});

test.serial("a channel's own topics policy takes can_set_topics_policy_group, at creation and on PATCH", async (t) => {
  const alice = await newPerson(t.context, 'Alice Topics');
  const id = await create(alice, unique('topics'));
  const policy = (value: number) =>
    bodyOf(t.context.iago.patch('/realm', { can_set_topics_policy_group: { new: value } }));
  await policy(administrators);
  try {
    const own = { topics_policy: 'disable_empty_topic' };
    const name = unique('topics refused');
    await refused(
      t,
      alice.client.post('/channels/create', { name, subscribers: [alice.user_id], ...own }),
      'Insufficient permission',
    );
    await refused(
      t,
      alice.client.post('/users/me/subscriptions', { subscriptions: [{ name }], ...own }),
      'Insufficient permission',
    );
    await refused(t, alice.client.patch(`/streams/${id}`, own), 'Insufficient permission');
    // The realm's policy is anyone's to keep.
    await create(alice, unique('topics inherit'), { topics_policy: 'inherit' });
    const byIago = await create({ client: t.context.iago, user_id: IDS.iago } as Person, unique('topics by iago'), own);
    t.is((await streamOf({ client: t.context.iago } as Person, byIago)).topics_policy, 'disable_empty_topic');
  } finally {
    await policy(SYSTEM_GROUPS['role:members']);
  }
  await bodyOf(alice.client.patch(`/streams/${id}`, { topics_policy: 'disable_empty_topic' }));
  t.is((await streamOf(alice, id)).topics_policy, 'disable_empty_topic');
});
