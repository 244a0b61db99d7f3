import { SYSTEM_GROUPS } from '@chat/protocol';
import type { ExecutionContext } from 'ava';
import { withServer, type Logins } from './context.js';
import { newPerson, type Person } from './people.js';
import { bodyOf, refused } from './replies.js';

/**
 * The realm's direct-message permission groups (the original's
 * `check_can_send_direct_message`): a direct message needs someone of
 * `direct_message_permission_group` among its sender and recipients, and
 * only `direct_message_initiator_group` may start a conversation; others may
 * answer one. Bots, and messages to bots or oneself, are exempt. Each test
 * changes the realm, so they run one at a time and put the defaults back.
 */
const test = withServer(['iago']);
type T = ExecutionContext<Logins<'iago'>>;

const group = (value: number | { direct_members: number[]; direct_subgroups: number[] }) =>
  JSON.stringify({ new: value });

async function setting(t: T, name: string, value: Parameters<typeof group>[0]): Promise<void> {
  await bodyOf(t.context.iago.patch('/realm', { [name]: group(value) }));
}

async function reset(t: T): Promise<void> {
  await setting(t, 'direct_message_permission_group', SYSTEM_GROUPS['role:everyone']);
  await setting(t, 'direct_message_initiator_group', SYSTEM_GROUPS['role:everyone']);
}

const dm = (from: Person, to: number[], content = 'hello') =>
  from.client.post('/messages', { type: 'direct', to: JSON.stringify(to), content });

const sent = async (from: Person, to: number[]) => (await bodyOf<{ id: number }>(dm(from, to))).id;

/** Sent once the sender's own actor has heard of the conversation (it hears of it just after the message). */
async function answered(from: Person, to: number[]): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const reply = await dm(from, to, 'answer');
    if (reply.status === 200) return;
    if (Date.now() > deadline) throw new Error(JSON.stringify(reply.body));
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test.serial('the permission group: a conversation needs one of its members; nobody disables DMs', async (t) => {
  const [alice, bob] = await Promise.all([newPerson(t.context, 'Alice P'), newPerson(t.context, 'Bob P')]);
  const made = await bodyOf<{ user_id: number }>(
    alice.client.post('/bots', { full_name: 'Permission Bot', short_name: `permbot${Date.now()}` }),
  );
  await setting(t, 'direct_message_permission_group', SYSTEM_GROUPS['role:administrators']);
  try {
    await refused(t, dm(alice, [bob.user_id]), 'This conversation does not include any users who can authorize it.');
    // An administrator among the recipients authorizes it, and either side may then write.
    const iagoId = (await bodyOf<{ user_id: number }>(t.context.iago.get('/users/me'))).user_id;
    await sent(alice, [bob.user_id, iagoId]);
    await sent(bob, [alice.user_id, iagoId]);
    // Oneself and bots are exempt.
    await sent(alice, [alice.user_id]);
    await sent(alice, [made.user_id]);
    // A user group of the setting counts through its members.
    const { group_id } = await bodyOf<{ group_id: number }>(
      t.context.iago.post('/user_groups/create', {
        name: `dm ok ${Date.now()}`,
        description: '',
        members: [bob.user_id],
      }),
    );
    await setting(t, 'direct_message_permission_group', group_id);
    await sent(alice, [bob.user_id]);
    await setting(t, 'direct_message_permission_group', { direct_members: [], direct_subgroups: [group_id] });
    await sent(alice, [bob.user_id]);
    await setting(t, 'direct_message_permission_group', { direct_members: [], direct_subgroups: [] });
    await refused(t, dm(alice, [bob.user_id]), 'This conversation does not include any users who can authorize it.');
    await setting(t, 'direct_message_permission_group', SYSTEM_GROUPS['role:nobody']);
    await refused(t, dm(alice, [bob.user_id]), 'Direct messages are disabled in this organization.');
    await refused(t, dm(alice, [bob.user_id, iagoId]), 'Direct messages are disabled in this organization.');
    await sent(alice, [made.user_id]);
  } finally {
    await reset(t);
  }
  await sent(alice, [bob.user_id]);
});

test.serial('the initiator group: others may answer a conversation but not start one', async (t) => {
  const [alice, bob, carol] = await Promise.all([
    newPerson(t.context, 'Alice I'),
    newPerson(t.context, 'Bob I'),
    newPerson(t.context, 'Carol I'),
  ]);
  await setting(t, 'direct_message_initiator_group', { direct_members: [alice.user_id], direct_subgroups: [] });
  try {
    const refusal = 'You do not have permission to initiate direct message conversations.';
    await refused(t, dm(bob, [carol.user_id]), refusal);
    await refused(t, dm(bob, [alice.user_id]), refusal);
    await refused(t, dm(bob, [alice.user_id, carol.user_id]), refusal);
    // Alice starts them; Bob may then answer, one to one and in the group.
    await sent(alice, [bob.user_id]);
    await sent(alice, [bob.user_id, carol.user_id]);
    await answered(bob, [alice.user_id]);
    await answered(bob, [alice.user_id, carol.user_id]);
    // Another conversation is still one Bob may not start, and a note to himself needs no one.
    await refused(t, dm(bob, [carol.user_id]), refusal);
    await sent(bob, [bob.user_id]);
  } finally {
    await reset(t);
  }
  await sent(bob, [carol.user_id]);
});
