import { SYSTEM_GROUPS, type ActorAddress, type Command } from '@chat/protocol';
import { typedClient, type ActorClient, type UntypedActorClient } from '@chat/runtime';
import type { ChatClient } from '@chat/testkit';
import { onCluster } from './cluster-target.js';
import { withServer } from './context.js';
import { TestServer } from './support.js';
import { newPerson, type Person } from './people.js';
import { bodyOf, refused, succeeds } from './replies.js';

/**
 * Who may subscribe whom to an existing channel, as the original's
 * add_subscriptions_backend (filter_stream_authorization_for_adding_subscribers):
 * a channel the caller cannot read (`user_has_content_access`) is
 * "unauthorized", refused as "Unable to access channel (…)." or, with
 * `authorization_errors_fatal` false, listed and left out; administering
 * the channel or the realm gives no content access, so it does not help. A
 * readable channel whose subscribers the caller may not add is "Insufficient
 * permission" either way: only unreadable channels are ever listed.
 */
const test = withServer(['iago']);

let made = 0;
const unique = (what: string) => `${what} ${++made} ${Date.now() % 100000}`;
const SUBSCRIPTIONS = '/users/me/subscriptions';

/** A channel made by `who` with only `who` subscribed. */
async function channelOf(who: ChatClient, name: string, invite_only: boolean): Promise<number> {
  const me = (await bodyOf<{ user_id: number }>(who.get('/users/me'))).user_id;
  return (await bodyOf<{ id: number }>(who.post('/channels/create', { name, subscribers: [me], invite_only }))).id;
}

const subscribe = (who: ChatClient, names: string[], more: Record<string, unknown> = {}) =>
  who.post(SUBSCRIPTIONS, { subscriptions: names.map((name) => ({ name })), ...more });

const members = (...people: Person[]) =>
  JSON.stringify({ new: { direct_members: people.map((p) => p.user_id), direct_subgroups: [] } });

test('administering a private channel or the realm does not let one subscribe anyone to it', async (t) => {
  const [bob, carol, dave, erin] = await Promise.all(
    ['Bob A', 'Carol A', 'Dave A', 'Erin A'].map((n) => newPerson(t.context, n)),
  );
  const iago = t.context.iago;
  const name = unique('Bob room');
  const id = await channelOf(bob.client, name, true);
  // Dave administers the channel, Erin may add its subscribers; neither is subscribed.
  await bodyOf(bob.client.patch(`/streams/${id}`, { can_administer_channel_group: members(bob, dave) }));
  await bodyOf(bob.client.patch(`/streams/${id}`, { can_add_subscribers_group: members(erin) }));
  const unable = `Unable to access channel (${name}).`;
  for (const admin of [iago, dave.client]) {
    await refused(t, subscribe(admin, [name]), unable);
    await refused(t, subscribe(admin, [name], { principals: [carol.user_id] }), unable);
    const listed = await succeeds(
      'POST',
      SUBSCRIPTIONS,
      subscribe(admin, [name], { authorization_errors_fatal: false }),
    );
    t.deepEqual([listed.subscribed, listed.already_subscribed, listed.unauthorized], [{}, {}, [name]]);
  }
  // can_add_subscribers_group reads the channel, so Erin may join it and add others.
  const joined = await succeeds('POST', SUBSCRIPTIONS, subscribe(erin.client, [name], { principals: [carol.user_id] }));
  t.deepEqual(joined.subscribed, { [carol.user_id]: [name] });
  t.deepEqual((await succeeds('POST', SUBSCRIPTIONS, subscribe(erin.client, [name]))).subscribed, {
    [erin.user_id]: [name],
  });
  const after = await bodyOf<{ subscribers: number[] }>(bob.client.get(`/streams/${id}/members`));
  t.deepEqual(
    after.subscribers.sort((a, b) => a - b),
    [bob.user_id, carol.user_id, erin.user_id].sort((a, b) => a - b),
  );
});

// Serial: it narrows the realm's can_add_subscribers_group, then puts it back.
test.serial('with authorization_errors_fatal false, only the channels one cannot read are listed', async (t) => {
  const [bob, carol] = await Promise.all(['Bob F', 'Carol F'].map((n) => newPerson(t.context, n)));
  const iago = t.context.iago;
  const [hidden, open] = [unique('Hidden'), unique('Open')];
  await channelOf(iago, hidden, true);
  await channelOf(iago, open, false);
  const tolerant = { authorization_errors_fatal: false };
  const mixed = await succeeds('POST', SUBSCRIPTIONS, subscribe(bob.client, [hidden, open], tolerant));
  t.deepEqual(mixed.subscribed, { [bob.user_id]: [open] });
  t.deepEqual(mixed.unauthorized, [hidden]);
  // Bob reads Open but may no longer add its subscribers: an error, not an entry of `unauthorized`.
  const realmSetting = (group: number) =>
    iago.patch('/realm', { can_add_subscribers_group: JSON.stringify({ new: group }) });
  await bodyOf(realmSetting(SYSTEM_GROUPS['role:administrators']));
  try {
    await refused(
      t,
      subscribe(bob.client, [open], { ...tolerant, principals: [carol.user_id] }),
      'Insufficient permission',
    );
    await refused(t, subscribe(bob.client, [open], { principals: [carol.user_id] }), 'Insufficient permission');
  } finally {
    await bodyOf(realmSetting(SYSTEM_GROUPS['role:members']));
  }
  const members = await bodyOf<{ subscribers: number[] }>(iago.get(`/streams/${await idOf(iago, open)}/members`));
  t.false(members.subscribers.includes(carol.user_id));
});

async function idOf(client: ChatClient, name: string): Promise<number> {
  return (await bodyOf<{ stream_id: number }>(client.get('/get_stream_id', { stream: name }))).stream_id;
}

test('an archived channel takes subscribers as any other (feature level 362)', async (t) => {
  const [bob, carol] = await Promise.all(['Bob R', 'Carol R'].map((n) => newPerson(t.context, n)));
  const iago = t.context.iago;
  const [open, hidden] = [unique('Archived open'), unique('Archived hidden')];
  const id = await channelOf(iago, open, false);
  await bodyOf(iago.delete(`/streams/${id}`));
  await bodyOf(iago.delete(`/streams/${await channelOf(iago, hidden, true)}`));
  const joined = await succeeds(
    'POST',
    SUBSCRIPTIONS,
    subscribe(bob.client, [open], { principals: [bob.user_id, carol.user_id] }),
  );
  t.deepEqual(joined.subscribed, { [bob.user_id]: [open], [carol.user_id]: [open] });
  // One still cannot read a private one, archived or not.
  const listed = await succeeds(
    'POST',
    SUBSCRIPTIONS,
    subscribe(bob.client, [hidden], { authorization_errors_fatal: false }),
  );
  t.deepEqual([listed.subscribed, listed.unauthorized], [{}, [hidden]]);
  const after = await bodyOf<{ subscribers: number[] }>(iago.get(`/streams/${id}/members`));
  t.true(after.subscribers.includes(bob.user_id) && after.subscribers.includes(carol.user_id));
  await bodyOf(bob.client.delete(SUBSCRIPTIONS, { subscriptions: JSON.stringify([open]) }));
});

test('a refused request subscribes and creates nothing, whatever the order of its channels', async (t) => {
  const bob = await newPerson(t.context, 'Bob N');
  const iago = t.context.iago;
  const [open, hidden, fresh] = [unique('Nothing open'), unique('Nothing hidden'), unique('Nothing new')];
  const id = await channelOf(iago, open, false);
  await channelOf(iago, hidden, true);
  await refused(t, subscribe(bob.client, [open, fresh, hidden]), `Unable to access channel (${hidden}).`);
  const members = await bodyOf<{ subscribers: number[] }>(iago.get(`/streams/${id}/members`));
  t.false(members.subscribers.includes(bob.user_id));
  t.is((await iago.get('/get_stream_id', { stream: fresh })).status, 400);
});

test('a new channel one may not create is refused before an unreadable one (list_to_streams comes first)', async (t) => {
  const bob = await newPerson(t.context, 'Bob C');
  const iago = t.context.iago;
  const [hidden, fresh] = [unique('Create hidden'), unique('Create new')];
  await channelOf(iago, hidden, true);
  // Only administrators make default channels: the creation check of the new one answers first.
  await refused(t, subscribe(bob.client, [hidden, fresh], { is_default_stream: true }), 'Insufficient permission');
  t.is((await iago.get('/get_stream_id', { stream: fresh })).status, 400);
  await refused(t, subscribe(bob.client, [hidden, fresh]), `Unable to access channel (${hidden}).`);
  t.is((await iago.get('/get_stream_id', { stream: fresh })).status, 400);
});

/**
 * The edge's client, with each `channel.subscribe` ask of `userId` held until `release`: the
 * channel's own check comes after what the test does meanwhile.
 */
function holdingSubscribes(actors: ActorClient, userId: () => number | undefined) {
  const loose = actors as unknown as UntypedActorClient;
  let release!: () => void;
  let reached!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const held = new Promise<void>((resolve) => (reached = resolve));
  const client = typedClient({
    ...loose,
    ask: async (to: ActorAddress, body: Command, opts) => {
      const actor = (body as { actor?: { user_id: number } | null }).actor;
      if (body.type === 'channel.subscribe' && actor?.user_id === userId()) {
        reached();
        await released;
      }
      return loose.ask(to, body, opts);
    },
    tell: (to, body, opts) => loose.tell(to, body, opts),
    fanout: (type, keys, body, opts) => loose.fanout(type, keys, body, opts),
    fanoutAsk: (type, keys, body, opts) => loose.fanoutAsk(type, keys, body, opts),
  });
  return { client, held, release };
}

// Embedded only: the test holds an ask of the edge, which a cluster's edges do not let it reach.
test('a channel that turns private and is renamed between the edge’s check and the subscribe is refused or listed', async (t) => {
  if (onCluster) return t.pass();
  for (const fatal of [true, false]) {
    let bobId: number | undefined;
    let hold!: ReturnType<typeof holdingSubscribes>;
    const server = await TestServer.start({}, (actors) => (hold = holdingSubscribes(actors, () => bobId)).client);
    try {
      const iago = await server.login('iago@zulip.com');
      const bob = await newPerson({ server, iago }, 'Bob T');
      bobId = bob.user_id;
      const [name, renamed] = [unique('Turning'), unique('Turned')];
      const id = await channelOf(iago, name, false);
      // Bob may read the channel when the edge checks; it is private, renamed and without him when the channel does.
      const asked = subscribe(bob.client, [name], fatal ? {} : { authorization_errors_fatal: false });
      await hold.held;
      await bodyOf(iago.patch(`/streams/${id}`, { is_private: true, new_name: renamed }));
      hold.release();
      if (fatal) await refused(t, asked, `Unable to access channel (${renamed}).`);
      else {
        // Listed under the name asked for.
        const listed = await succeeds('POST', SUBSCRIPTIONS, asked);
        t.deepEqual([listed.subscribed, listed.already_subscribed, listed.unauthorized], [{}, {}, [name]]);
      }
      const after = await bodyOf<{ subscribers: number[] }>(iago.get(`/streams/${id}/members`));
      t.false(after.subscribers.includes(bob.user_id));
    } finally {
      await server.stop();
    }
  }
});
