import { withServer, type Logins } from './context.js';
import { newPerson, type Person } from './people.js';
import { next, register, type Event } from './queues.js';
import { bodyOf, refused, succeeds } from './replies.js';

/** Subscription status, a channel's e-mail address, and the legacy muted_topics form kept in step with user topics. */
const test = withServer(['iago']);

type T = { context: Logins<'iago'> };

async function channel(owner: Person, members: Person[], inviteOnly = false) {
  const name = `lookups ${Date.now()} ${Math.random()}`;
  const subscribers = JSON.stringify([owner, ...members].map((p) => p.user_id));
  const { id } = await bodyOf<{ id: number }>(
    owner.client.post('/channels/create', { name, subscribers, invite_only: inviteOnly }),
  );
  return { id, name };
}

const people = (t: T, ...names: string[]) => Promise.all(names.map((name) => newPerson(t.context, name)));

test('subscription status says who is subscribed, for channels the caller may see', async (t) => {
  const [alice, bob, carol] = (await people(t, 'Alice L', 'Bob L', 'Carol L')) as [Person, Person, Person];
  const place = await channel(alice, [bob]);
  const status = async (who: Person, userId: number, channelId: number) =>
    (
      await succeeds<{ is_subscribed: boolean }>(
        'GET',
        `/users/${userId}/subscriptions/${channelId}`,
        who.client.get(`/users/${userId}/subscriptions/${channelId}`),
      )
    ).is_subscribed;
  t.true(await status(carol, bob.user_id, place.id));
  t.false(await status(bob, carol.user_id, place.id));
  const secret = await channel(alice, [bob], true);
  t.true(await status(bob, alice.user_id, secret.id));
  await refused(t, carol.client.get(`/users/${alice.user_id}/subscriptions/${secret.id}`), 'Invalid channel ID');
  await refused(t, carol.client.get(`/users/999999/subscriptions/${place.id}`), 'No such user');
  await bodyOf(t.context.iago.delete(`/users/${bob.user_id}`));
  await refused(t, carol.client.get(`/users/${bob.user_id}/subscriptions/${place.id}`), 'User is deactivated');
});

test("a channel's e-mail address is empty without an e-mail gateway; its checks stand", async (t) => {
  const [alice, bob] = (await people(t, 'Alice M', 'Bob M')) as [Person, Person];
  const secret = await channel(alice, [], true);
  const reply = await succeeds<{ email: string }>(
    'GET',
    `/streams/${secret.id}/email_address`,
    alice.client.get(`/streams/${secret.id}/email_address`),
  );
  t.is(reply.email, '');
  await refused(t, bob.client.get(`/streams/${secret.id}/email_address`), 'Invalid channel ID');
  await refused(t, alice.client.get(`/streams/${secret.id}/email_address`, { sender_id: bob.user_id }), 'No such bot');
});

test('muting a topic the legacy way changes user topics, and each form tells its own clients', async (t) => {
  const [alice] = (await people(t, 'Alice T')) as [Person];
  const place = await channel(alice, []);
  const legacy = await register(alice.client, { event_types: ['muted_topics'] });
  const modern = await register(alice.client, { event_types: ['user_topic', 'muted_topics'] });
  const mute = (params: Record<string, unknown>) =>
    succeeds(
      'PATCH',
      '/users/me/subscriptions/muted_topics',
      alice.client.patch('/users/me/subscriptions/muted_topics', params),
    );
  await mute({ stream_id: place.id, topic: 'Lunch', op: 'add' });
  const isList = (e: Event) => e.type === 'muted_topics';
  const list = await next(legacy, isList);
  t.deepEqual(
    (list.muted_topics as Array<[string, string, number]>).map(([name, topic]) => [name, topic]),
    [[place.name, 'Lunch']],
  );
  const topic = await next(modern, (e) => e.type === 'user_topic' && e.topic_name === 'Lunch');
  t.is(topic.visibility_policy, 1);
  const { snapshot } = await register(alice.client, { fetch_event_types: ['user_topic', 'muted_topics'] });
  t.true((snapshot.user_topics as Array<{ topic_name: string }>).some((u) => u.topic_name === 'Lunch'));
  t.is((snapshot.muted_topics as unknown[]).length, 1);
  // By name this time, and back to the default.
  await mute({ stream: place.name, topic: 'Lunch', op: 'remove' });
  const cleared = await next(modern, (e) => e.type === 'user_topic' && e.visibility_policy === 0);
  t.is(cleared.topic_name, 'Lunch');
  t.false(modern.seen.some(isList), 'a client that asked for user_topic gets no legacy list');
  await refused(
    t,
    alice.client.patch('/users/me/subscriptions/muted_topics', {
      stream: place.name,
      stream_id: place.id,
      topic: 'x',
      op: 'add',
    }),
    "Please choose one: 'stream' or 'stream_id'.",
  );
  await refused(
    t,
    alice.client.patch('/users/me/subscriptions/muted_topics', { topic: 'x', op: 'add' }),
    "Please supply 'stream'.",
  );
  await refused(
    t,
    alice.client.patch('/users/me/subscriptions/muted_topics', {
      stream: 'no such channel here',
      topic: 'x',
      op: 'add',
    }),
    "Invalid channel name 'no such channel here'",
  );
});

test('GET /streams include_can_access_content: the channels one may read, in place of the other include flags', async (t) => {
  const [alice, bob] = (await people(t, 'Alice C', 'Bob C')) as [Person, Person];
  const open = await channel(alice, []);
  const closed = await channel(alice, [], true);
  const shared = await channel(alice, [bob], true);
  const ids = async (who: { get: Person['client']['get'] }, params: Record<string, unknown>) => {
    const body = await succeeds<{ streams: Array<{ stream_id: number }> }>(
      'GET',
      '/streams',
      who.get('/streams', params),
    );
    const listed = new Set(body.streams.map((s) => s.stream_id));
    return [open, closed, shared].filter((c) => listed.has(c.id)).map((c) => c.name);
  };
  const none = { include_public: false, include_subscribed: false };
  t.deepEqual(await ids(bob.client, none), []);
  t.deepEqual(await ids(bob.client, { ...none, include_can_access_content: true }), [open.name, shared.name]);
  t.deepEqual(await ids(bob.client, { include_can_access_content: true }), [open.name, shared.name]);
  // include_all gives anyone but an administrator the channels they may know of, whatever the other flags say.
  t.deepEqual(await ids(bob.client, { ...none, include_all: true }), [open.name, shared.name]);
  // Administrators see private channels' settings, not their messages; include_all still lists everything.
  const { iago } = t.context;
  t.deepEqual(await ids(iago, { include_can_access_content: true }), [open.name]);
  t.deepEqual(await ids(iago, { include_can_access_content: true, include_all: true }), [
    open.name,
    closed.name,
    shared.name,
  ]);
});

test('a new channel takes folder_id and topics_policy from either way of creating it; retention only from owners', async (t) => {
  const { iago } = t.context;
  const folder = await bodyOf<{ channel_folder_id: number }>(
    iago.post('/channel_folders/create', { name: `new channels ${Date.now()}` }),
  );
  const folder_id = folder.channel_folder_id;
  const settingsOf = async (id: number) =>
    (await bodyOf<{ stream: Record<string, unknown> }>(iago.get(`/streams/${id}`))).stream;

  const created = await bodyOf<{ id: number }>(
    iago.post('/channels/create', {
      name: `foldered ${Date.now()}`,
      subscribers: '[]',
      folder_id,
      topics_policy: 'disable_empty_topic',
    }),
  );
  t.like(await settingsOf(created.id), { folder_id, topics_policy: 'disable_empty_topic' });

  const name = `subscribed foldered ${Date.now()}`;
  await bodyOf(iago.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name }]), folder_id }));
  const id = (await bodyOf<{ stream_id: number }>(iago.get('/get_stream_id', { stream: name }))).stream_id;
  t.like(await settingsOf(id), { folder_id });

  for (const [path, params] of [
    ['/channels/create', { name: `nowhere ${Date.now()}`, subscribers: '[]' }],
    ['/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: `nowhere ${Date.now()}` }]) }],
  ] as const) {
    const unknown = await iago.post(path, { ...params, folder_id: 99999 });
    t.is(unknown.status, 400, path);
    t.like(unknown.body, { code: 'BAD_REQUEST', msg: 'Invalid channel folder ID' });
  }
  const retention = await iago.post('/channels/create', {
    name: `kept ${Date.now()}`,
    subscribers: '[]',
    message_retention_days: 30,
  });
  t.like(retention.body, { msg: 'Must be an organization owner' });
});

test('announce: the notification bot tells the new-channel announcements channel who created which', async (t) => {
  const { iago } = t.context;
  const me = await bodyOf<{ user_id: number; full_name: string }>(iago.get('/users/me'));
  const board = await bodyOf<{ id: number }>(
    iago.post('/channels/create', { name: `announcements ${Date.now()}`, subscribers: JSON.stringify([me.user_id]) }),
  );
  const latest = async () => {
    // The topic the announcements go to: the board's own first message, the notice of its creation, is elsewhere.
    const narrow = JSON.stringify([
      { operator: 'channel', operand: board.id },
      { operator: 'topic', operand: 'new channels' },
    ]);
    const body = await bodyOf<{ messages: Array<{ content: string; subject: string; sender_full_name: string }> }>(
      iago.get('/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow, apply_markdown: false }),
    );
    return body.messages[0];
  };
  const quiet = `quiet ${Date.now()}`;
  await bodyOf(iago.post('/channels/create', { name: quiet, subscribers: '[]', announce: true }));
  t.true((await latest()) === undefined, 'no announcements channel yet, so nothing is said');

  await bodyOf(iago.patch('/realm', { new_stream_announcements_stream_id: board.id }));
  const one = `one ${Date.now()}`;
  await bodyOf(iago.post('/channels/create', { name: one, subscribers: '[]', announce: true }));
  const who = `@_**${me.full_name}|${me.user_id}**`;
  t.like(await latest(), {
    subject: 'new channels',
    sender_full_name: 'Notification Bot',
    content: `${who} created a new channel #**${one}**.`,
  });
  const [a, b] = [`first ${Date.now()}`, `second ${Date.now()}`];
  const subscriptions = JSON.stringify([{ name: a }, { name: b }, { name: one }]);
  await bodyOf(iago.post('/users/me/subscriptions', { subscriptions, announce: true }));
  t.like(await latest(), { content: `${who} created the following channels: #**${a}**, #**${b}**.` });
  await bodyOf(iago.post('/channels/create', { name: `silent ${Date.now()}`, subscribers: '[]' }));
  t.like(await latest(), { content: `${who} created the following channels: #**${a}**, #**${b}**.` }, 'not asked');
});

test('send_new_subscription_messages: those subscribed by someone else hear of existing channels from the bot', async (t) => {
  const { iago } = t.context;
  const [alice, bob] = (await people(t, 'Alice S', 'Bob S')) as [Person, Person];
  const existing = await channel(alice, []);
  const me = await bodyOf<{ user_id: number; full_name: string }>(iago.get('/users/me'));
  const fresh = `fresh ${Date.now()}`;
  const subscriptions = JSON.stringify([{ name: existing.name }, { name: fresh }]);
  const reply = await bodyOf<Record<string, unknown>>(
    iago.post('/users/me/subscriptions', { subscriptions, principals: JSON.stringify([bob.user_id, me.user_id]) }),
  );
  t.true(reply.new_subscription_messages_sent);
  const dms = async (who: Person) =>
    (
      await bodyOf<{ messages: Array<{ content: string; sender_full_name: string }> }>(
        who.client.get('/messages', {
          anchor: 'newest',
          num_before: 5,
          num_after: 0,
          narrow: JSON.stringify([{ operator: 'is', operand: 'dm' }]),
          apply_markdown: false,
        }),
      )
    ).messages;
  // The channel the request created is left out.
  t.like(await dms(bob), [
    {
      sender_full_name: 'Notification Bot',
      content: `@**${me.full_name}|${me.user_id}** subscribed you to the channel #**${existing.name}**.`,
    },
  ]);

  const [carol] = (await people(t, 'Carol S')) as [Person];
  const other = await channel(alice, []);
  const quiet = await bodyOf<Record<string, unknown>>(
    iago.post('/users/me/subscriptions', {
      subscriptions: JSON.stringify([{ name: existing.name }, { name: other.name }]),
      principals: JSON.stringify([carol.user_id]),
      send_new_subscription_messages: false,
    }),
  );
  t.false('new_subscription_messages_sent' in quiet);
  t.deepEqual(await dms(carol), []);
  await bodyOf(
    iago.post('/users/me/subscriptions', {
      subscriptions: JSON.stringify([{ name: `third ${Date.now()}` }, { name: existing.name }, { name: other.name }]),
      principals: JSON.stringify([carol.user_id]),
    }),
  );
  t.deepEqual(await dms(carol), [], 'already subscribed to those two, and the third is new');
  const [dave] = (await people(t, 'Dave S')) as [Person];
  await bodyOf(
    iago.post('/users/me/subscriptions', {
      subscriptions: JSON.stringify([{ name: existing.name }, { name: other.name }]),
      principals: JSON.stringify([dave.user_id]),
    }),
  );
  t.like(await dms(dave), [
    {
      content: `@**${me.full_name}|${me.user_id}** subscribed you to the following channels:\n\n* #**${[existing.name, other.name].sort()[0]}**\n* #**${[existing.name, other.name].sort()[1]}**`,
    },
  ]);
});
