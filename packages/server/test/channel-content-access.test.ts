import type { ExecutionContext } from 'ava';
import type { ChatClient } from '@chat/testkit';
import { withServer, type Logins } from './context.js';
import { newPerson } from './people.js';
import { bodyOf, refused } from './replies.js';

/**
 * Who may read a channel's messages (the original's `user_has_content_access`):
 * everyone a web-public channel's, guests too; subscribers; non-guests a
 * public channel's; and non-guests in a private channel's `can_subscribe_group`
 * or `can_add_subscribers_group`, never guests, and administrators no more
 * than anyone. `GET /streams?include_can_access_content`, a channel narrow
 * and sending agree on it.
 */
const test = withServer(['iago', 'polonius']);
type T = ExecutionContext<Logins<'iago' | 'polonius'>>;

const ROME = 5; // web-public in the development realm; Polonius (a guest) is not in it
const DENMARK = 4; // public

/** Two private channels of Alice (history public, then protected) whose subscribe group names Bob and the guest. */
async function setup(t: T) {
  const [alice, bob, carol] = await Promise.all(['Alice CA', 'Bob CA', 'Carol CA'].map((n) => newPerson(t.context, n)));
  const grant = { direct_members: [bob!.user_id, 13], direct_subgroups: [] };
  const make = async (history: boolean) => {
    const name = `content ${history} ${Date.now()} ${Math.random()}`;
    const { id } = await bodyOf<{ id: number }>(
      alice!.client.post('/channels/create', {
        name,
        subscribers: JSON.stringify([alice!.user_id]),
        invite_only: true,
        history_public_to_subscribers: history,
      }),
    );
    await bodyOf(alice!.client.patch(`/streams/${id}`, { can_subscribe_group: JSON.stringify({ new: grant }) }));
    await send(alice!.client, id, 'before anyone else');
    return { id, name };
  };
  return { alice: alice!, bob: bob!, carol: carol!, open: await make(true), hidden: await make(false) };
}

const send = (client: ChatClient, to: number, content: string) =>
  client.post('/messages', { type: 'stream', to, topic: 'content access', content });

const listed = async (client: ChatClient, ids: number[]) => {
  const body = await bodyOf<{ streams: Array<{ stream_id: number }> }>(
    client.get('/streams', { include_can_access_content: true }),
  );
  const got = new Set(body.streams.map((s) => s.stream_id));
  return ids.filter((id) => got.has(id));
};

const fetchIn = (client: ChatClient, channel: number) =>
  client.get<{ messages: Array<{ content: string }> }>('/messages', {
    anchor: 'newest',
    num_before: 10,
    num_after: 0,
    narrow: JSON.stringify([{ operator: 'channel', operand: channel }]),
  });

test('a guest reads and writes a web-public channel he is not in, and is listed it; not a public one', async (t) => {
  const { iago, polonius } = t.context;
  await bodyOf(send(iago, ROME, 'for the internet'));
  t.deepEqual(await listed(polonius, [ROME, DENMARK]), [ROME]);
  const got = await bodyOf<{ messages: Array<{ content: string }> }>(fetchIn(polonius, ROME));
  t.true(got.messages.some((m) => m.content.includes('for the internet')));
  await bodyOf(send(polonius, ROME, 'a guest writes'));
  t.not((await fetchIn(polonius, DENMARK)).status, 200);
  await refused(t, send(polonius, DENMARK, 'no'), "Not authorized to send to channel 'Denmark'");
  // He joins neither: subscribing through the API is not for guests (the original's require_non_guest_user).
  const join = (name: string) =>
    polonius.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name }]) });
  await refused(t, join('Denmark'), 'Not allowed for guest users');
  await refused(t, join('Rome'), 'Not allowed for guest users');
});

test("a private channel's subscribe group gives its non-guest members its messages, not guests or others", async (t) => {
  const { iago, polonius } = t.context;
  const { bob, carol, open, hidden } = await setup(t);
  t.deepEqual(await listed(bob.client, [open.id, hidden.id]), [open.id, hidden.id]);
  const got = await bodyOf<{ messages: Array<{ content: string; sender_full_name: string }> }>(
    fetchIn(bob.client, open.id),
  );
  // Besides the notification bot's notice of the channel's creation.
  t.deepEqual(
    got.messages.filter((m) => m.sender_full_name !== 'Notification Bot').map((m) => m.content),
    ['<p>before anyone else</p>'],
  );
  await bodyOf(send(bob.client, open.id, 'from the group'));
  // Protected history: nothing he was not there for, and he may not post (the original's access_stream_for_send_message).
  t.deepEqual((await bodyOf<{ messages: unknown[] }>(fetchIn(bob.client, hidden.id))).messages, []);
  await refused(t, send(bob.client, hidden.id, 'no'), `Not authorized to send to channel '${hidden.name}'`);
  // Neither a member outside the group, nor the guest it names, nor an administrator.
  for (const who of [carol.client, polonius, iago]) {
    t.deepEqual(await listed(who, [open.id, hidden.id]), []);
    await refused(t, fetchIn(who, open.id), 'Invalid channel ID');
  }
  // The group lets Bob join; the guest it names may not (no guest subscribes through the API).
  const join = (who: ChatClient) =>
    who.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: open.name }]) });
  await refused(t, join(polonius), 'Not allowed for guest users');
  await bodyOf(join(bob.client));
});
