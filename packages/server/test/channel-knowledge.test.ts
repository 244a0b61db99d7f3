import { ROLES, SYSTEM_GROUPS } from '@chat/protocol';
import { withServer } from './context.js';
import { newPerson, type Person } from './people.js';
import { of, poll, register, snapshotOf, take, type Body, type Event, type Queue } from './queues.js';
import { fails, ok } from './replies.js';

/**
 * Who may know of a private channel through groups (its `can_subscribe_group`,
 * `can_add_subscribers_group`, `can_administer_channel_group`) hears of it
 * when that knowledge changes, as the original's `bulk_add_members_to_user_groups`,
 * `bulk_remove_members_from_user_groups` and `do_change_stream_group_based_setting`
 * tell: `stream` create (then the subscribers in a `peer_add`) to who gains it,
 * `stream` delete to who loses it, nothing to its subscribers. A fresh register
 * agrees, and the realm refuses to deactivate a group a channel uses.
 */
const test = withServer(['iago', 'desdemona']);

let made = 0;
const unique = (what: string) => `${what} ${++made} ${Date.now() % 100000}`;

const created = (id: number) => of('stream', 'create', (e) => (e.streams as Body[]).some((s) => s.stream_id === id));
const deleted = (id: number) => of('stream', 'delete', (e) => (e.stream_ids as number[]).includes(id));
const described = (id: number, value: string) => (e: Event) =>
  e.type === 'stream' && e.op === 'update' && e.stream_id === id && e.property === 'description' && e.value === value;

async function group(owner: Person, members: number[] = []): Promise<number> {
  const body = await ok(owner.client, 'POST', '/user_groups/create', {
    name: unique('knowers'),
    description: '',
    members,
  });
  return body.group_id as number;
}

async function privateChannel(owner: Person, subscribers: number[], settings: Body): Promise<number> {
  const params = {
    name: unique('secret'),
    subscribers: [owner.user_id, ...subscribers],
    invite_only: true,
    ...settings,
  };
  return (await ok(owner.client, 'POST', '/channels/create', params)).id as number;
}

const neverSubscribed = async (who: Person) =>
  ((await snapshotOf(who.client, { fetch_event_types: ['subscription'] })).never_subscribed as Body[]).map(
    (s) => s.stream_id,
  );

const readable = async (who: Person) =>
  ((await ok(who.client, 'GET', '/streams', { include_can_access_content: true })).streams as Body[]).map(
    (s) => s.stream_id,
  );

const listen = (who: Person) => register(who.client, { event_types: ['stream', 'subscription'] });

/** Changes the channel's description and waits for the queue to hear it: what came before it has come. */
async function marker(owner: Person, id: number, queue: Queue): Promise<void> {
  const value = unique('marker');
  await ok(owner.client, 'PATCH', `/streams/${id}`, { description: value });
  await take(queue, described(id, value));
}

test('joining a group in can_subscribe_group makes the channel known (create, peer_add, register); leaving, gone', async (t) => {
  const [alice, bob, carol] = await Promise.all(['Alice GK', 'Bob GK', 'Carol GK'].map((n) => newPerson(t.context, n)));
  const team = await group(alice!);
  const id = await privateChannel(alice!, [carol!.user_id], { can_subscribe_group: team });
  t.false((await neverSubscribed(bob!)).includes(id));
  const [bobs, carols] = await Promise.all([listen(bob!), listen(carol!)]);

  await ok(alice!.client, 'POST', `/user_groups/${team}/members`, { add: [bob!.user_id, carol!.user_id] });
  const create = await take(bobs, created(id));
  t.like((create.streams as Body[])[0], { stream_id: id, invite_only: true });
  const peers = await take(
    bobs,
    of('subscription', 'peer_add', (e) => (e.stream_ids as number[]).includes(id)),
  );
  t.deepEqual(
    peers.user_ids,
    [alice!.user_id, carol!.user_id].sort((a, b) => a - b),
  );
  t.true((await neverSubscribed(bob!)).includes(id));
  t.true((await readable(bob!)).includes(id));
  // Bob now hears the channel's changes, as who may know of it.
  await marker(alice!, id, bobs);
  // Carol, a subscriber, knew it already.
  await marker(alice!, id, carols);
  t.false(carols.seen.some(created(id)));

  await ok(alice!.client, 'POST', `/user_groups/${team}/members`, { delete: [bob!.user_id, carol!.user_id] });
  await take(bobs, deleted(id));
  t.false((await neverSubscribed(bob!)).includes(id));
  t.false((await readable(bob!)).includes(id));
  await marker(alice!, id, carols);
  t.false(carols.seen.some(deleted(id)));
});

test('a subgroup joining the group in can_add_subscribers_group brings its members', async (t) => {
  const [alice, dave] = await Promise.all(['Alice SG', 'Dave SG'].map((n) => newPerson(t.context, n)));
  const outer = await group(alice!);
  const inner = await group(alice!, [dave!.user_id]);
  const id = await privateChannel(alice!, [], { can_add_subscribers_group: outer });
  const daves = await listen(dave!);
  await ok(alice!.client, 'POST', `/user_groups/${outer}/subgroups`, { add: [inner] });
  await take(daves, created(id));
  t.true((await neverSubscribed(dave!)).includes(id));
  await ok(alice!.client, 'POST', `/user_groups/${outer}/subgroups`, { delete: [inner] });
  await take(daves, deleted(id));
  t.false((await neverSubscribed(dave!)).includes(id));
});

test('PATCH /streams/{id} naming someone in can_administer_channel_group makes it known to him; naming nobody, gone', async (t) => {
  const [alice, erin] = await Promise.all(['Alice PA', 'Erin PA'].map((n) => newPerson(t.context, n)));
  const id = await privateChannel(alice!, [], {});
  const erins = await listen(erin!);
  const change = (value: unknown) =>
    ok(alice!.client, 'PATCH', `/streams/${id}`, { can_administer_channel_group: JSON.stringify({ new: value }) });
  await change({ direct_members: [alice!.user_id, erin!.user_id], direct_subgroups: [] });
  await take(erins, created(id));
  t.true((await neverSubscribed(erin!)).includes(id));
  // Administering grants no content: the channel is not among those he may read.
  t.false((await readable(erin!)).includes(id));
  await change({ direct_members: [alice!.user_id], direct_subgroups: [] });
  await take(erins, deleted(id));
  t.false((await neverSubscribed(erin!)).includes(id));
});

test('a group a channel uses cannot be deactivated', async (t) => {
  const alice = await newPerson(t.context, 'Alice DG');
  const team = await group(alice);
  const id = await privateChannel(alice, [], { can_subscribe_group: team });
  const reply = await alice.client.post(`/user_groups/${team}/deactivate`);
  await fails(t, reply, 'CANNOT_DEACTIVATE_GROUP_IN_USE', 'Cannot deactivate user group in use.');
  t.deepEqual((reply.body as Body).objections, [
    { type: 'channel', channel_id: id, settings: ['can_subscribe_group'] },
  ]);
});

test('registers racing a member joining and leaving the group: each event applies once, and every view ends right', async (t) => {
  const [alice, bob] = await Promise.all(['Alice RC', 'Bob RC'].map((n) => newPerson(t.context, n)));
  const team = await group(alice!);
  const id = await privateChannel(alice!, [], { can_subscribe_group: team });
  const known = (snapshot: Body) => (snapshot.never_subscribed as Body[]).some((s) => s.stream_id === id);
  const views: Array<{ queue: Queue; knows: boolean; twice: string[]; applied: number }> = [];
  const apply = (view: (typeof views)[number]) => {
    for (const e of view.queue.seen.slice(view.applied)) {
      if (created(id)(e)) {
        if (view.knows) view.twice.push(`create ${e.id} of a channel it knew`);
        view.knows = true;
      } else if (deleted(id)(e)) {
        if (!view.knows) view.twice.push(`delete ${e.id} of a channel it did not know`);
        view.knows = false;
      }
    }
    view.applied = view.queue.seen.length;
  };
  const registering = (async () => {
    for (let i = 0; i < 8; i++) {
      const queue = await register(bob!.client, { event_types: ['stream'], fetch_event_types: ['subscription'] });
      views.push({ queue, knows: known(queue.snapshot), twice: [], applied: 0 });
    }
  })();
  for (let i = 0; i < 7; i++) {
    const change = i % 2 === 0 ? { add: [bob!.user_id] } : { delete: [bob!.user_id] };
    await ok(alice!.client, 'POST', `/user_groups/${team}/members`, change);
  }
  await registering;
  // Seven changes: he is in the group at the end.
  t.true(known(await snapshotOf(bob!.client, { fetch_event_types: ['subscription'] })));
  const deadline = Date.now() + 60_000;
  for (const view of views) {
    for (apply(view); !view.knows && Date.now() < deadline; apply(view)) {
      await poll(view.queue, true);
      await new Promise((wait) => setTimeout(wait, 200));
    }
    await poll(view.queue, true);
    apply(view);
    t.deepEqual(view.twice, []);
    t.true(view.knows, 'the last create reached every queue');
  }
});

test('becoming a moderator makes a channel whose can_subscribe_group is role:moderators known; a member again, gone', async (t) => {
  const [alice, frank] = await Promise.all(['Alice RO', 'Frank RO'].map((n) => newPerson(t.context, n)));
  const id = await privateChannel(alice!, [], { can_subscribe_group: SYSTEM_GROUPS['role:moderators'] });
  const franks = await listen(frank!);
  await ok(t.context.iago, 'PATCH', `/users/${frank!.user_id}`, { role: ROLES.moderator });
  await take(franks, created(id));
  t.true((await neverSubscribed(frank!)).includes(id));
  await ok(t.context.iago, 'PATCH', `/users/${frank!.user_id}`, { role: ROLES.member });
  await take(franks, deleted(id));
  t.false((await neverSubscribed(frank!)).includes(id));
});

test('a private channel made naming a group: its members hear stream create once, and GET /streams?include_all lists it', async (t) => {
  const [alice, gina, hal] = await Promise.all(['Alice MK', 'Gina MK', 'Hal MK'].map((n) => newPerson(t.context, n)));
  const team = await group(alice!, [gina!.user_id]);
  const [ginas, hals] = await Promise.all([listen(gina!), listen(hal!)]);
  const id = await privateChannel(alice!, [], { can_add_subscribers_group: team });
  await take(ginas, created(id));
  await marker(alice!, id, ginas);
  t.is(ginas.seen.filter(created(id)).length, 1);
  const all = (await ok(gina!.client, 'GET', '/streams', { include_all: true })).streams as Body[];
  t.true(all.some((s) => s.stream_id === id));
  // Hal, in no group the channel names, hears of it only once he joins one.
  await poll(hals, true);
  t.false(hals.seen.some(created(id)));
  await ok(alice!.client, 'POST', `/user_groups/${team}/members`, { add: [hal!.user_id] });
  await take(hals, created(id));
  t.is(hals.seen.filter(created(id)).length, 1);
});

test('a public channel made private is gone for members who knew it only as public; made public again, it comes back', async (t) => {
  const [alice, ivan] = await Promise.all(['Alice PV', 'Ivan PV'].map((n) => newPerson(t.context, n)));
  const params = { name: unique('open'), subscribers: [alice!.user_id] };
  const id = (await ok(alice!.client, 'POST', '/channels/create', params)).id as number;
  const ivans = await listen(ivan!);
  t.true((await neverSubscribed(ivan!)).includes(id));
  await ok(alice!.client, 'PATCH', `/streams/${id}`, { is_private: true });
  await take(ivans, deleted(id));
  t.false((await neverSubscribed(ivan!)).includes(id));
  await ok(alice!.client, 'PATCH', `/streams/${id}`, { is_private: false });
  await take(ivans, created(id));
  t.true((await neverSubscribed(ivan!)).includes(id));
});

test('a channel made web-public reaches the guests not in it (stream create, register); no longer web-public, gone', async (t) => {
  // Only owners may make a channel web-public (can_create_web_public_channel_group).
  const { iago, desdemona } = t.context;
  const [gus, sue, max] = await Promise.all(['Gus WP', 'Sue WP', 'Max WP'].map((n) => newPerson(t.context, n)));
  await Promise.all([gus!, sue!].map((g) => ok(iago, 'PATCH', `/users/${g.user_id}`, { role: ROLES.guest })));
  // Sue, a guest, is subscribed; Max is a member who knows it as public.
  const params = { name: unique('web'), subscribers: [sue!.user_id] };
  const id = (await ok(iago, 'POST', '/channels/create', params)).id as number;
  const [guss, sues, maxs] = await Promise.all([gus!, sue!, max!].map(listen));
  t.false((await neverSubscribed(gus!)).includes(id));

  await ok(desdemona, 'PATCH', `/streams/${id}`, { is_web_public: true });
  const create = await take(guss!, created(id));
  t.like((create.streams as Body[])[0], { stream_id: id, is_web_public: true, invite_only: false });
  t.true((await neverSubscribed(gus!)).includes(id));
  // Who knew it hears the change as the original tells it: property invite_only, carrying is_web_public.
  const privacy = of('stream', 'update', (e) => e.stream_id === id && e.is_web_public === true);
  t.like(await take(maxs!, privacy), { property: 'invite_only', value: false, history_public_to_subscribers: true });

  await ok(desdemona, 'PATCH', `/streams/${id}`, { is_web_public: false });
  await take(guss!, deleted(id));
  t.false((await neverSubscribed(gus!)).includes(id));
  // The subscriber and the member hear its changes, and neither a create nor a delete.
  const admin = { client: iago } as Person;
  await marker(admin, id, sues!);
  await marker(admin, id, maxs!);
  for (const queue of [sues!, maxs!]) t.false(queue.seen.some((e) => created(id)(e) || deleted(id)(e)));
});

test.serial(
  'registers of the streams section alone racing channels made, archived and made private: each event applies once',
  async (t) => {
    const [alice, bob] = await Promise.all(['Alice SR', 'Bob SR'].map((n) => newPerson(t.context, n)));
    const made: number[] = [];
    const changing = (async () => {
      for (let i = 0; i < 8; i++) {
        const params = { name: unique('stream race'), subscribers: [alice!.user_id] };
        const id = (await ok(alice!.client, 'POST', '/channels/create', params)).id as number;
        made.push(id);
        if (i % 3 === 1) await ok(alice!.client, 'DELETE', `/streams/${id}`);
        if (i % 3 === 2) await ok(alice!.client, 'PATCH', `/streams/${id}`, { is_private: true });
      }
    })();
    // Bob (a member, subscribed to none of them) lists public channels: creates, archives (a delete without the
    // archived_channels capability) and a privacy change (a delete the realm sends) race his registrations.
    const views: Array<{ queue: Queue; streams: Set<number>; twice: string[] }> = [];
    let done = false;
    const registering = Array.from({ length: 3 }, async () => {
      while (!done && views.length < 45) {
        const queue = await register(bob!.client, { event_types: ['stream'] });
        const streams = new Set((queue.snapshot.streams as Body[]).map((s) => s.stream_id as number));
        views.push({ queue, streams, twice: [] });
      }
    });
    await changing;
    done = true;
    await Promise.all(registering);
    const listed = async () => {
      const streams = (await snapshotOf(bob!.client, { event_types: ['stream'] })).streams as Body[];
      return streams.map((s) => s.stream_id as number).filter((id) => made.includes(id));
    };
    const final = (await listed()).sort((a, b) => a - b);
    t.deepEqual(
      final,
      made.filter((_, i) => i % 3 === 0),
    );
    for (const [i, view] of views.entries()) {
      const ours = () => [...view.streams].filter((id) => made.includes(id)).sort((a, b) => a - b);
      for (let round = 0; round < 50 && JSON.stringify(ours()) !== JSON.stringify(final); round++) {
        for (const e of await poll(view.queue, true)) {
          if (e.type !== 'stream') continue;
          if (e.op === 'create') {
            for (const s of e.streams as Body[]) {
              const id = s.stream_id as number;
              if (view.streams.has(id)) view.twice.push(`create ${id} of a channel it listed`);
              view.streams.add(id);
            }
          } else if (e.op === 'delete') {
            for (const id of e.stream_ids as number[]) {
              if (!view.streams.has(id)) view.twice.push(`delete ${id} of a channel it did not list`);
              view.streams.delete(id);
            }
          }
        }
        await new Promise((wait) => setTimeout(wait, 200));
      }
      t.deepEqual(view.twice, [], `client ${i} applied a change twice`);
      t.deepEqual(ours(), final, `client ${i} ends where a fresh snapshot is`);
    }
  },
);

test.serial(
  'registers racing a member added to and removed from a private channel all answer, each change applied once',
  async (t) => {
    const [alice, bob] = await Promise.all(['Alice PR', 'Bob PR'].map((n) => newPerson(t.context, n)));
    const name = unique('private race');
    await ok(alice!.client, 'POST', '/channels/create', { name, subscribers: [alice!.user_id], invite_only: true });
    const id = (await ok(alice!.client, 'GET', '/get_stream_id', { stream: name })).stream_id as number;
    const principals = JSON.stringify([bob!.user_id]);
    let done = false;
    const toggling = (async () => {
      for (let i = 0; i < 16; i++) {
        await ok(alice!.client, 'POST', '/users/me/subscriptions', {
          subscriptions: JSON.stringify([{ name }]),
          principals,
          send_new_subscription_messages: false,
        });
        await ok(alice!.client, 'DELETE', '/users/me/subscriptions', {
          subscriptions: JSON.stringify([name]),
          principals,
        });
      }
      done = true;
    })();
    const has = (snapshot: Body) => (snapshot.subscriptions as Body[]).some((s) => s.stream_id === id);
    const views: Array<{ queue: Queue; subscribed: boolean; twice: string[] }> = [];
    const registering = Array.from({ length: 3 }, async () => {
      while (!done && views.length < 45) {
        const queue = await register(bob!.client, { event_types: ['subscription'] });
        views.push({ queue, subscribed: has(queue.snapshot), twice: [] });
      }
    });
    await toggling;
    await Promise.all(registering);
    t.false(has(await snapshotOf(bob!.client, { event_types: ['subscription'] })));
    for (const [i, view] of views.entries()) {
      // Every change was acknowledged: two rounds bring what is left, more while it still looks subscribed.
      for (let round = 0; round < 50 && (round < 2 || view.subscribed); round++) {
        for (const e of await poll(view.queue, true)) {
          if (e.type !== 'subscription' || (e.op !== 'add' && e.op !== 'remove')) continue;
          if (!(e.subscriptions as Body[]).some((s) => s.stream_id === id)) continue;
          if (e.op === 'add' && view.subscribed) view.twice.push(`add ${e.id} of a subscription it had`);
          if (e.op === 'remove' && !view.subscribed) view.twice.push(`remove ${e.id} of a subscription it had not`);
          view.subscribed = e.op === 'add';
        }
        await new Promise((wait) => setTimeout(wait, 200));
      }
      t.deepEqual(view.twice, [], `client ${i} applied a change twice`);
      t.false(view.subscribed, `client ${i} ends unsubscribed`);
    }
  },
);
