import { assertResponse } from '@chat/testkit';
import { withServer } from './context.js';
import { newPerson } from './people.js';
import { bodyOf, fails, refusal, refused, type Body } from './replies.js';

/**
 * Answers whose text, code or status the reference documents and the
 * original's source says (issue 19): a channel name in use, when renaming
 * (`check_stream_name_available`) and when creating (`StreamExistsError`,
 * 409), and a message sent or scheduled to a channel id the realm never had
 * (`StreamWithIDDoesNotExistError`, checked by `check_message` at once, also
 * for a scheduled message); and GET /messages/{id}, which takes no
 * `client_gravatar` (`json_fetch_raw_message` answers as if it were true).
 */
const test = withServer(['iago']);

let made = 0;
const unique = (what: string) => `${what} ${++made} ${Date.now() % 100000}`;
const NO_SUCH_CHANNEL = 987_654;

async function channel(t: { context: { iago: import('@chat/testkit').ChatClient } }, name: string): Promise<number> {
  const iago = t.context.iago;
  const me = (await bodyOf<{ user_id: number }>(iago.get('/users/me'))).user_id;
  return (await bodyOf<{ id: number }>(iago.post('/channels/create', { name, subscribers: [me] }))).id;
}

test('renaming a channel to a name in use, in any case, is "Channel name already in use."', async (t) => {
  const taken = unique('Taken name');
  await channel(t, taken);
  const id = await channel(t, unique('to rename'));
  const rename = (new_name: string) => t.context.iago.patch(`/streams/${id}`, { new_name });
  await refused(t, rename(taken), 'Channel name already in use.');
  await refused(t, rename(taken.toUpperCase()), 'Channel name already in use.');
});

test('creating a channel whose name is in use is a 409 CHANNEL_ALREADY_EXISTS', async (t) => {
  const taken = unique('Existing');
  await channel(t, taken);
  const me = (await bodyOf<{ user_id: number }>(t.context.iago.get('/users/me'))).user_id;
  for (const name of [taken, taken.toLowerCase()]) {
    const reply = await t.context.iago.post('/channels/create', { name, subscribers: [me] });
    t.deepEqual(await refusal(reply), {
      status: 409,
      result: 'error',
      code: 'CHANNEL_ALREADY_EXISTS',
      msg: `Channel '${name}' already exists`,
    });
    assertResponse('POST', '/channels/create', 409, reply.body);
  }
});

test('a message sent or scheduled to a channel id the realm never had names the id', async (t) => {
  const bob = await newPerson(t.context, 'Bob R');
  const message = { type: 'stream', to: NO_SUCH_CHANNEL, topic: 'x', content: 'hello' };
  const expected = ['STREAM_DOES_NOT_EXIST', `Channel with ID '${NO_SUCH_CHANNEL}' does not exist`] as const;
  const sent = await fails(t, bob.client.post('/messages', message), ...expected);
  t.is(sent.stream_id, NO_SUCH_CHANNEL);
  const later = { ...message, scheduled_delivery_timestamp: Math.floor(Date.now() / 1000) + 3600 };
  const scheduled = await fails(t, bob.client.post('/scheduled_messages', later), ...expected);
  t.is(scheduled.stream_id, NO_SUCH_CHANNEL);
  // Nothing was kept to fail later.
  t.deepEqual(
    (await bodyOf<{ scheduled_messages: unknown[] }>(bob.client.get('/scheduled_messages'))).scheduled_messages,
    [],
  );
});

test('GET /messages/{id} ignores client_gravatar, as the original, and says so', async (t) => {
  const bob = await newPerson(t.context, 'Bob G');
  const me = { type: 'direct', to: [bob.user_id], content: 'a note' };
  const { id } = await bodyOf<{ id: number }>(bob.client.post('/messages', me));
  const plain = await bodyOf<{ message: { avatar_url: string | null } }>(bob.client.get(`/messages/${id}`));
  t.is(plain.message.avatar_url, null);
  const asked = await bodyOf<Body>(bob.client.get(`/messages/${id}`, { client_gravatar: false }));
  t.deepEqual(asked.ignored_parameters_unsupported, ['client_gravatar']);
  t.deepEqual(asked.message, plain.message);
});

test('subscribing others to a private channel one cannot read is "Unable to access channel (…)."', async (t) => {
  const [bob, carol] = [await newPerson(t.context, 'Bob P'), await newPerson(t.context, 'Carol P')];
  const name = unique('Private room');
  const me = (await bodyOf<{ user_id: number }>(t.context.iago.get('/users/me'))).user_id;
  await bodyOf(t.context.iago.post('/channels/create', { name, subscribers: [me], invite_only: true }));
  const add = (who: typeof bob, principals: number[]) =>
    who.client.post('/users/me/subscriptions', { subscriptions: [{ name }], principals });
  await refused(t, add(bob, [bob.user_id]), `Unable to access channel (${name}).`);
  await refused(t, add(bob, [carol.user_id]), `Unable to access channel (${name}).`);
});

test('a scheduled message is refused now where its send would be: a private or archived channel', async (t) => {
  const bob = await newPerson(t.context, 'Bob S');
  const name = unique('Closed room');
  const me = (await bodyOf<{ user_id: number }>(t.context.iago.get('/users/me'))).user_id;
  const id = (
    await bodyOf<{ id: number }>(
      t.context.iago.post('/channels/create', { name, subscribers: [me], invite_only: true }),
    )
  ).id;
  const later = {
    type: 'stream',
    to: id,
    topic: 'x',
    content: 'hi',
    scheduled_delivery_timestamp: Math.floor(Date.now() / 1000) + 3600,
  };
  await refused(t, bob.client.post('/scheduled_messages', later), `Not authorized to send to channel '${name}'`);
  await bodyOf(t.context.iago.delete(`/streams/${id}`));
  await refused(t, t.context.iago.post('/scheduled_messages', later), `Not authorized to send to channel '${name}'`);
});
