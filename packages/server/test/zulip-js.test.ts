import { createRequire } from 'node:module';
import anyTest, { type TestFn } from 'ava';
import { TestServer } from './support.js';

/**
 * The official JavaScript client, zulip-js, used as its README says: it sends
 * every POST as multipart/form-data (JSON-encoding arrays), every GET with the
 * parameters in the query string, and authenticates with basic auth.
 */

/** What zulip-js resolves to: the parts these tests call. It ships no types. */
type ZulipReply = Record<string, unknown> & { result: string; msg: string; code?: string };
interface ZulipClient {
  messages: {
    send(params: Record<string, unknown>): Promise<ZulipReply>;
    retrieve(params: Record<string, unknown>): Promise<ZulipReply>;
  };
  users: { me: { getProfile(): Promise<ZulipReply> } };
}
const zulipInit = createRequire(import.meta.url)('zulip-js') as (config: {
  username: string;
  apiKey: string;
  realm: string;
}) => Promise<ZulipClient>;

interface Message {
  id: number;
  type: string;
  content: string;
  sender_id: number;
  sender_email: string;
  subject: string;
  display_recipient: string | Array<{ id: number; email: string }>;
}

const test = anyTest as TestFn<{ server: TestServer; iago: ZulipClient; othello: ZulipClient }>;

const connect = async (server: TestServer, email: string): Promise<ZulipClient> => {
  const reply = await server.client.post<{ api_key: string }>('/dev_fetch_api_key', { username: email });
  if (reply.status !== 200) throw new Error(`cannot log in ${email}: ${JSON.stringify(reply.body)}`);
  return zulipInit({ username: email, apiKey: reply.body.api_key, realm: server.server.url });
};

test.before(async (t) => {
  t.context.server = await TestServer.start();
  t.context.iago = await connect(t.context.server, 'iago@zulip.com');
  t.context.othello = await connect(t.context.server, 'othello@zulip.com');
});
test.after.always(async (t) => {
  await t.context.server?.stop();
});

test('getProfile answers the calling user', async (t) => {
  const me = await t.context.iago.users.me.getProfile();
  t.like(me, { result: 'success', email: 'iago@zulip.com', full_name: 'Iago', is_admin: true });
  t.is(typeof me.user_id, 'number');
});

test('a channel message sent with zulip-js is read back with zulip-js by its narrow', async (t) => {
  const { iago, othello } = t.context;
  const iagoId = (await iago.users.me.getProfile()).user_id as number;
  const topic = `zulip-js ${Date.now()}`;
  const sent = await iago.messages.send({ type: 'stream', to: 'Denmark', topic, content: 'Hello from **zulip-js**' });
  t.like(sent, { result: 'success' });
  t.is(typeof sent.id, 'number');

  const read = await othello.messages.retrieve({
    anchor: 'newest',
    num_before: 10,
    num_after: 0,
    narrow: [
      { operator: 'channel', operand: 'Denmark' },
      { operator: 'topic', operand: topic },
    ],
  });
  t.like(read, { result: 'success', found_newest: true });
  const messages = read.messages as Message[];
  t.deepEqual(
    messages.map((m) => m.id),
    [sent.id],
  );
  t.like(messages[0], {
    type: 'stream',
    display_recipient: 'Denmark',
    subject: topic,
    sender_id: iagoId,
    sender_email: 'iago@zulip.com',
    content: '<p>Hello from <strong>zulip-js</strong></p>',
  });
});

test('a direct message sent with zulip-js is read back by its recipient', async (t) => {
  const { iago, othello } = t.context;
  const [iagoId, othelloId] = await Promise.all(
    [iago, othello].map(async (client) => (await client.users.me.getProfile()).user_id as number),
  );
  const content = `psst ${Date.now()}`;
  // zulip-js JSON-encodes an array `to` inside the multipart body.
  const sent = await iago.messages.send({ type: 'direct', to: ['othello@zulip.com'], content });
  t.like(sent, { result: 'success' });
  const byId = await iago.messages.send({ type: 'private', to: [othelloId], content: `${content} again` });
  t.like(byId, { result: 'success' });

  const read = await othello.messages.retrieve({
    anchor: 'newest',
    num_before: 10,
    num_after: 0,
    narrow: [{ operator: 'dm', operand: 'iago@zulip.com' }],
  });
  t.like(read, { result: 'success' });
  const messages = (read.messages as Message[]).filter((m) => m.id === sent.id || m.id === byId.id);
  t.deepEqual(
    messages.map((m) => m.id),
    [sent.id, byId.id],
  );
  t.like(messages[0], {
    type: 'private',
    subject: '',
    sender_id: iagoId,
    sender_email: 'iago@zulip.com',
    content: `<p>${content}</p>`,
  });
  t.deepEqual(
    (messages[0]!.display_recipient as Array<{ id: number }>).map((r) => r.id).sort((a, b) => a - b),
    [iagoId, othelloId].sort((a, b) => a - b),
  );
});

test('an error of the server reaches zulip-js as a Zulip error body', async (t) => {
  const reply = await t.context.iago.messages.send({ type: 'stream', to: 'Atlantis', topic: 't', content: 'x' });
  t.like(reply, { result: 'error', code: 'STREAM_DOES_NOT_EXIST' });
});

/** zulip-js has no settings helper; its generic `callEndpoint(path, method, params)` reaches any operation. */
type CallEndpoint = (path: string, method: string, params: Record<string, unknown>) => Promise<ZulipReply>;

test('a setting changed with zulip-js is read back through zulip-js', async (t) => {
  const call: CallEndpoint = (t.context.othello as unknown as { callEndpoint: CallEndpoint }).callEndpoint;
  const read = async () => {
    const params = { fetch_event_types: ['user_settings'], client_capabilities: '{"user_settings_object": true}' };
    const reply = await call('/register', 'POST', params);
    t.like(reply, { result: 'success' });
    return reply.user_settings as { web_home_view: string; color_scheme: number };
  };
  const before = await read();
  const wanted = { web_home_view: before.web_home_view === 'inbox' ? 'all_messages' : 'inbox', color_scheme: 3 };
  t.like(await call('/settings', 'PATCH', wanted), { result: 'success' });
  t.like(await read(), wanted);
  const refused = await call('/settings', 'PATCH', { color_scheme: 7 });
  t.like(refused, { result: 'error', code: 'BAD_REQUEST', msg: 'Invalid color_scheme' });
});
