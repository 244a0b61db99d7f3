import anyTest, { type TestFn } from 'ava';
import { pythonInterpreter, runPython, startPython } from './python.js';
import { TestServer } from './support.js';

/**
 * The official Python client, the `zulip` package of requirements-test.txt,
 * driven by the scripts in test/python: zulip.Client(email, api_key, site)
 * reads /server_settings when it is made, then sends form bodies with basic
 * auth, JSON-encoding every value that is not a string.
 */
interface Login {
  site: string;
  email: string;
  api_key: string;
}
interface Message {
  id: number;
  type: string;
  content: string;
  sender_id: number;
  sender_email: string;
  subject: string;
  display_recipient: string;
  client: string;
}
type Reply = Record<string, unknown> & { result: string; msg: string; code?: string };

const test = anyTest as TestFn<{ server: TestServer; iago: Login; othello: Login }>;

test.before(async (t) => {
  // The first run installs the package from PyPI (seconds); later runs reuse it.
  t.timeout(5 * 60_000);
  const [server] = await Promise.all([TestServer.start(), pythonInterpreter()]);
  t.context.server = server;
  const login = async (email: string): Promise<Login> => {
    const reply = await server.client.post<{ api_key: string }>('/dev_fetch_api_key', { username: email });
    if (reply.status !== 200) throw new Error(`cannot log in ${email}: ${JSON.stringify(reply.body)}`);
    return { site: server.server.url, email, api_key: reply.body.api_key };
  };
  t.context.iago = await login('iago@zulip.com');
  t.context.othello = await login('othello@zulip.com');
});
test.after.always(async (t) => {
  await t.context.server?.stop();
});

test('a channel message sent with the Python client is read back with it by channel and topic', async (t) => {
  const { server, iago, othello } = t.context;
  const topic = `python ${Date.now()}`;
  const sent = await runPython<Reply & { id: number }>('send_message.py', {
    input: { ...iago, message: { type: 'stream', to: 'Denmark', topic, content: 'Hello from *Python*' } },
  });
  t.like(sent, { result: 'success' });
  t.is(typeof sent.id, 'number');

  const read = await runPython<Reply & { messages: Message[] }>('get_messages.py', {
    input: {
      ...othello,
      request: {
        anchor: 'newest',
        num_before: 10,
        num_after: 0,
        narrow: [
          { operator: 'channel', operand: 'Denmark' },
          { operator: 'topic', operand: topic },
        ],
      },
    },
  });
  t.like(read, { result: 'success', found_newest: true });
  t.deepEqual(
    read.messages.map((m) => m.id),
    [sent.id],
  );
  const iagoId = (await (await server.login('iago@zulip.com')).get<{ user_id: number }>('/users/me')).body.user_id;
  t.like(read.messages[0], {
    type: 'stream',
    display_recipient: 'Denmark',
    subject: topic,
    sender_id: iagoId,
    sender_email: 'iago@zulip.com',
    content: '<p>Hello from <em>Python</em></p>',
    client: 'ZulipPython',
  });
});

test('an error of the server reaches the Python client as a Zulip error body', async (t) => {
  const reply = await runPython<Reply>('send_message.py', {
    input: { ...t.context.iago, message: { type: 'stream', to: 'Atlantis', topic: 't', content: 'x' } },
  });
  t.like(reply, { result: 'error', code: 'STREAM_DOES_NOT_EXIST' });
});

test('call_on_each_event receives a message another user sends', async (t) => {
  const { iago, othello } = t.context;
  // Narrowed to direct messages: the other tests of this file post in channels Othello is in.
  const listener = await startPython('on_each_event.py', {
    input: { ...othello, narrow: [['is', 'dm']] },
    timeoutMs: 30_000,
  });
  await listener.line(/^registered /);
  const content = `to the listener ${Date.now()}`;
  const sent = await runPython<Reply & { id: number }>('send_message.py', {
    input: { ...iago, message: { type: 'direct', to: [othello.email], content } },
  });
  const { code, stdout } = await listener.result;
  t.is(code, 0);
  const event = JSON.parse(stdout.trim()) as { type: string; message: Message; flags: string[] };
  t.is(event.type, 'message');
  t.is(event.message.id, sent.id);
  t.is(event.message.content, content);
  t.is(event.message.sender_email, iago.email);
});
