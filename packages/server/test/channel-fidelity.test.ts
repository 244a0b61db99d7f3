import { SYSTEM_GROUPS } from '@chat/protocol';
import { IDS, withServer } from './context.js';
import { newPerson, type Person } from './people.js';
import { eventsUntil, register, snapshotOf, take, type Body } from './queues.js';
import { bodyOf, fails, refused, succeeds } from './replies.js';

/**
 * Channel rules as the original has them (`zerver/views/streams.py`,
 * `zerver/lib/streams.py`, `zerver/lib/subscription_info.py`): guests neither
 * subscribe through the API nor create channels; a default channel at
 * creation needs an administrator; `stream_post_policy` and
 * `is_announcement_only` read from `can_send_message_group`; guests never
 * administer a channel through its group; never-subscribed channels carry
 * their subscribers when asked; `PATCH /streams/{id}` asks "may administer"
 * before looking up a folder.
 */
const test = withServer(['iago', 'polonius']);

const ROME = 5; // web-public in the development realm; Polonius (a guest) is not in it
const { 'role:members': members, 'role:moderators': moderators } = SYSTEM_GROUPS;
const { 'role:administrators': administrators, 'role:everyone': everyone } = SYSTEM_GROUPS;

let made = 0;
const unique = (what: string) => `${what} ${++made} ${Date.now() % 100000}`;

async function create(who: Person, name: string, settings: Body = {}): Promise<number> {
  const params = { name, subscribers: [who.user_id], ...settings };
  return (await succeeds<{ id: number }>('POST', '/channels/create', who.client.post('/channels/create', params))).id;
}

const names = async (client: Person['client']) =>
  (await bodyOf<{ streams: Body[] }>(client.get('/streams', { include_all: true }))).streams.map((s) => s.name);

test('a guest may not subscribe himself, even to a web-public channel he reads, nor create a channel', async (t) => {
  const { polonius, iago } = t.context;
  const name = unique('guest made');
  const subscribe = (n: string) => polonius.post('/users/me/subscriptions', { subscriptions: [{ name: n }] });
  const attempts = [
    () => subscribe('Rome'),
    () => subscribe(name),
    () => polonius.patch('/users/me/subscriptions', { add: [{ name: 'Rome' }] }),
    () => polonius.patch('/users/me/subscriptions', { delete: ['Rome'] }),
    () => polonius.post('/channels/create', { name, subscribers: [IDS.polonius] }),
  ];
  for (const attempt of attempts) await refused(t, attempt(), 'Not allowed for guest users');
  t.false((await names(iago)).includes(name));
  const members = await bodyOf<{ subscribers: number[] }>(polonius.get(`/streams/${ROME}/members`));
  t.false(members.subscribers.includes(IDS.polonius));
});

test('is_default_stream at creation needs an administrator, and a default channel cannot be private', async (t) => {
  const { iago } = t.context;
  const alice = await newPerson(t.context, 'Alice Default');
  const name = unique('default by member');
  await refused(
    t,
    alice.client.post('/users/me/subscriptions', { subscriptions: [{ name }], is_default_stream: true }),
    'Insufficient permission',
  );
  await refused(
    t,
    alice.client.post('/channels/create', { name, subscribers: [alice.user_id], is_default_stream: true }),
    'Insufficient permission',
  );
  await refused(
    t,
    iago.post('/channels/create', { name, subscribers: [IDS.iago], is_default_stream: true, invite_only: true }),
    'A default channel cannot be private.',
  );
  t.false((await names(iago)).includes(name));
  const id = (
    await bodyOf<{ id: number }>(
      iago.post('/channels/create', { name, subscribers: [IDS.iago], is_default_stream: true }),
    )
  ).id;
  const listed = await bodyOf<{ streams: Body[] }>(iago.get('/streams', { include_default: true }));
  t.true(listed.streams.find((s) => s.stream_id === id)!.is_default as boolean);
});

test('stream_post_policy and is_announcement_only follow can_send_message_group, with their update events', async (t) => {
  const alice = await newPerson(t.context, 'Alice Posting');
  const queue = await register(alice.client, { event_types: ['stream', 'subscription'] });
  const id = await create(alice, unique('posting'), { can_send_message_group: administrators });
  // Her subscription reaches her own actor after the answer on the cluster: the register reads it from there.
  await take(
    queue,
    (e) => e.type === 'subscription' && e.op === 'add' && (e.subscriptions as Body[])[0]?.stream_id === id,
  );
  const stream = async () =>
    (await bodyOf<{ stream: Body }>(alice.client.get(`/streams/${id}`))).stream as {
      stream_post_policy: number;
      is_announcement_only: boolean;
    };
  t.like(await stream(), { stream_post_policy: 2, is_announcement_only: true });
  const snapshot = await snapshotOf(alice.client, { fetch_event_types: ['subscription'] });
  t.like(
    (snapshot.subscriptions as Body[]).find((s) => s.stream_id === id),
    {
      stream_post_policy: 2,
      is_announcement_only: true,
    },
  );
  const change = (value: unknown) =>
    bodyOf(alice.client.patch(`/streams/${id}`, { can_send_message_group: JSON.stringify({ new: value }) }));
  const update = (property: string) => (e: Body) => e.op === 'update' && e.stream_id === id && e.property === property;
  await change(moderators);
  t.is((await take(queue, update('stream_post_policy'))).value, 4);
  t.is((await take(queue, update('is_announcement_only'))).value, false);
  t.like(await stream(), { stream_post_policy: 4, is_announcement_only: false });
  // An anonymous group, role:members and role:everyone all read as 1 (anyone): one change, then none.
  await change({ direct_members: [alice.user_id], direct_subgroups: [] });
  t.is((await take(queue, update('stream_post_policy'))).value, 1);
  await change(members);
  await change(everyone);
  const all = await eventsUntil(queue, (e) => update('can_send_message_group')(e) && e.value === everyone);
  t.deepEqual(
    all.filter(update('stream_post_policy')).map((e) => e.value),
    [4, 1],
  );
  t.like(await stream(), { stream_post_policy: 1, is_announcement_only: false });
});

test("a guest in a channel's can_administer_channel_group does not administer it", async (t) => {
  const { polonius } = t.context;
  const alice = await newPerson(t.context, 'Alice Guest Admin');
  const id = await create(alice, unique('guest admin'), {
    subscribers: [alice.user_id, IDS.polonius],
    can_administer_channel_group: { direct_members: [alice.user_id, IDS.polonius], direct_subgroups: [] },
  });
  await refused(
    t,
    polonius.patch(`/streams/${id}`, { description: 'by the guest' }),
    'You do not have permission to administer this channel.',
  );
  await bodyOf(alice.client.patch(`/streams/${id}`, { description: 'by Alice' }));
});

test('never_subscribed carries subscribers with include_subscribers, where the caller may see them', async (t) => {
  const { polonius, iago } = t.context;
  const [alice, bob, carol] = await Promise.all(['Alice NS', 'Bob NS', 'Carol NS'].map((n) => newPerson(t.context, n)));
  const open = await create(alice!, unique('never open'), { subscribers: [alice!.user_id, bob!.user_id] });
  const hidden = await create(alice!, unique('never hidden'), { invite_only: true });
  const never = async (client: Person['client'], include?: boolean | 'partial') => {
    const params = {
      fetch_event_types: ['subscription'],
      ...(include !== undefined ? { include_subscribers: include } : {}),
    };
    return (await snapshotOf(client, params)).never_subscribed as Body[];
  };
  const entry = (list: Body[], id: number) => list.find((s) => s.stream_id === id);
  t.deepEqual(
    [...(entry(await never(carol!.client, true), open)!.subscribers as number[])].sort(),
    [alice!.user_id, bob!.user_id].sort(),
  );
  t.deepEqual(
    entry(await never(carol!.client, 'partial'), open)!.subscribers,
    entry(await never(carol!.client, true), open)!.subscribers,
  );
  t.false('subscribers' in entry(await never(carol!.client), open)!);
  t.is(entry(await never(carol!.client, true), hidden), undefined);
  // An administrator knows the private one, with its subscribers; the guest, Rome's as its members route shows them.
  t.deepEqual(entry(await never(iago, true), hidden)!.subscribers, [alice!.user_id]);
  const rome = await bodyOf<{ subscribers: number[] }>(polonius.get(`/streams/${ROME}/members`));
  t.deepEqual(entry(await never(polonius, true), ROME)!.subscribers, rome.subscribers);
});

test('PATCH /streams/{id} asks whether the caller may administer the channel before looking up the folder', async (t) => {
  const alice = await newPerson(t.context, 'Alice Folder');
  const bob = await newPerson(t.context, 'Bob Folder');
  const id = await create(alice, unique('folder order'));
  await refused(
    t,
    bob.client.patch(`/streams/${id}`, { folder_id: 999999 }),
    'You do not have permission to administer this channel.',
  );
  await refused(t, alice.client.patch(`/streams/${id}`, { folder_id: 999999 }), 'Invalid channel folder ID');
});

test('never_subscribed lists a private channel to a member its groups let know of it, not to others', async (t) => {
  const [alice, bob, carol] = await Promise.all(['Alice PG', 'Bob PG', 'Carol PG'].map((n) => newPerson(t.context, n)));
  const id = await create(alice!, unique('private via group'), {
    invite_only: true,
    can_administer_channel_group: { direct_members: [alice!.user_id, bob!.user_id], direct_subgroups: [] },
  });
  const never = async (who: Person) =>
    ((await snapshotOf(who.client, { fetch_event_types: ['subscription'] })).never_subscribed as Body[]).map(
      (s) => s.stream_id,
    );
  t.true((await never(bob!)).includes(id));
  t.false((await never(carol!)).includes(id));
});

test('PATCH /streams/{id} on a private channel: who administers it without content access changes all but its privacy and the two access groups', async (t) => {
  const { iago } = t.context;
  const [alice, bob] = await Promise.all(['Alice CA', 'Bob CA'].map((n) => newPerson(t.context, n)));
  const id = await create(alice!, unique('content access'), {
    invite_only: true,
    can_administer_channel_group: { direct_members: [alice!.user_id, bob!.user_id], direct_subgroups: [] },
  });
  const group = (ids: number[]) => JSON.stringify({ new: { direct_members: ids, direct_subgroups: [] } });
  const current = JSON.stringify({ new: SYSTEM_GROUPS['role:nobody'] });
  // Neither Iago (an administrator) nor Bob (in the channel's group) is subscribed.
  for (const who of [iago, bob!.client]) {
    await bodyOf(who.patch(`/streams/${id}`, { can_send_message_group: JSON.stringify({ new: members }) }));
    await bodyOf(who.patch(`/streams/${id}`, { description: 'metadata is enough' }));
    // An unchanged value asks nothing.
    await bodyOf(who.patch(`/streams/${id}`, { can_subscribe_group: current }));
    for (const name of ['can_add_subscribers_group', 'can_subscribe_group']) {
      await refused(
        t,
        who.patch(`/streams/${id}`, { [name]: group([IDS.iago]) }),
        'Channel content access is required.',
      );
    }
    await refused(t, who.patch(`/streams/${id}`, { is_private: true }), 'Channel content access is required.');
  }
  const stream = await bodyOf<{ stream: Body }>(alice!.client.get(`/streams/${id}`));
  t.like(stream.stream, { invite_only: true, can_subscribe_group: SYSTEM_GROUPS['role:nobody'] });
  t.is(stream.stream.can_send_message_group, members);
  // Alice, subscribed, may.
  await bodyOf(alice!.client.patch(`/streams/${id}`, { can_subscribe_group: group([bob!.user_id]) }));
  await bodyOf(alice!.client.patch(`/streams/${id}`, { is_private: false }));
});

test('PATCH /streams/{id} changes one setting after another, as the original: a refusal keeps those before it', async (t) => {
  const { iago } = t.context;
  const params = { name: unique('one by one'), subscribers: [IDS.iago] };
  const made = await succeeds<{ id: number }>('POST', '/channels/create', iago.post('/channels/create', params));
  const id = made.id;
  const queue = await register(iago, { event_types: ['stream'] });
  const stream = async () => (await bodyOf<{ stream: Body }>(iago.get(`/streams/${id}`))).stream;
  const patch = (changes: Body) => iago.patch(`/streams/${id}`, changes);
  // The privacy first, then the retention, which only owners change (Iago administers the realm, not owns it).
  await fails(
    t,
    patch({ is_private: true, message_retention_days: 30 }),
    'UNAUTHORIZED_PRINCIPAL',
    'Must be an organization owner',
  );
  t.like(await stream(), { invite_only: true, message_retention_days: null });
  // The description before the group settings, whose 'old' value is checked at its turn.
  const sending = JSON.stringify({ new: moderators, old: administrators });
  await refused(
    t,
    patch({ description: 'kept', can_send_message_group: sending }),
    "'old' value does not match the expected value.",
  );
  t.like(await stream(), { description: 'kept', can_send_message_group: everyone });
  // The description before the name, which must be new.
  await refused(t, patch({ description: 'named', new_name: params.name }), 'Channel already has that name.');
  t.like(await stream(), { description: 'named' });
  // Refused before any change: a privacy that does not hold together.
  await refused(
    t,
    patch({ description: 'not kept', is_private: false, history_public_to_subscribers: false }),
    'Invalid parameters: public channels must have public history.',
  );
  t.like(await stream(), { description: 'named', invite_only: true });
  // The changes made are told, in the original's order.
  const told = await eventsUntil(
    queue,
    (e) => e.type === 'stream' && e.stream_id === id && e.property === 'description',
  );
  t.deepEqual(
    told.filter((e) => e.type === 'stream' && e.stream_id === id).map((e) => e.property),
    ['invite_only', 'description'],
  );
});

test('PATCH /streams/{id} with is_default_stream makes the channel a default one or no longer; a default channel cannot be private', async (t) => {
  const { iago } = t.context;
  const params = { name: unique('made default'), subscribers: [IDS.iago] };
  const { id } = await succeeds<{ id: number }>('POST', '/channels/create', iago.post('/channels/create', params));
  const defaults = async () =>
    (await snapshotOf(iago, { fetch_event_types: ['default_streams'] })).realm_default_streams as number[];
  await bodyOf(iago.patch(`/streams/${id}`, { is_default_stream: true }));
  t.true((await defaults()).includes(id));
  // Refused before any change: the description stays.
  await refused(
    t,
    iago.patch(`/streams/${id}`, { description: 'not kept', is_private: true }),
    'A default channel cannot be private.',
  );
  t.not((await bodyOf<{ stream: Body }>(iago.get(`/streams/${id}`))).stream.description, 'not kept');
  await bodyOf(iago.patch(`/streams/${id}`, { is_default_stream: false, is_private: true }));
  t.false((await defaults()).includes(id));
});
