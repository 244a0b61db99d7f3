import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChatClient } from '@chat/testkit';
import { IDS, channelId, withServer } from './context.js';

/**
 * Outgoing webhook bots: a mention in a channel or a direct message is POSTed
 * to the bot's URL (the Zulip and Slack-compatible formats), the answer is
 * posted back as the bot, and failures are reported as the original does.
 */
const test = withServer(['hamlet', 'othello']);

interface Call {
  type: string;
  body: string;
}

/**
 * A local endpoint answering each call with `answer(call)`: [status, JSON body], or 'drop' to
 * close the connection unanswered (a port let go instead could be taken by another test's server).
 */
async function endpoint(
  answer: (call: Call) => [number, unknown] | 'drop',
): Promise<{ url: string; calls: Call[]; server: Server }> {
  const calls: Call[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const call = { type: req.headers['content-type'] ?? '', body };
      calls.push(call);
      const answered = answer(call);
      if (answered === 'drop') return void req.socket.destroy();
      const [status, json] = answered;
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, calls, server };
}

let counter = 0;
async function makeBot(owner: ChatClient, url: string, interfaceType = 1) {
  counter += 1;
  const short = `hook${counter}x${Date.now()}`;
  const full = `Hook ${short}`;
  const reply = await owner.post<{ user_id: number }>('/bots', {
    full_name: full,
    short_name: short,
    bot_type: 3,
    payload_url: JSON.stringify(url),
    interface_type: interfaceType,
  });
  if (reply.status !== 200) throw new Error(`POST /bots: ${JSON.stringify(reply.body)}`);
  return { id: reply.body.user_id, full };
}

interface Msg {
  id: number;
  sender_id: number;
  content: string;
}

/** Waits for a message matching `pred` in `narrow`, as `client` sees it. */
async function waitFor(client: ChatClient, narrow: unknown[], pred: (m: Msg) => boolean, ms = 20_000): Promise<Msg> {
  const until = Date.now() + ms;
  for (;;) {
    const r = await client.get<{ messages: Msg[] }>('/messages', {
      anchor: 'newest',
      num_before: 20,
      num_after: 0,
      narrow: JSON.stringify(narrow),
      apply_markdown: 'false',
    });
    // A refused poll (a rate limit while waiting out the retries) is asked again.
    const found = r.status === 200 ? r.body.messages.find(pred) : undefined;
    if (found) return found;
    if (Date.now() > until) throw new Error(`no such message: ${r.status} ${JSON.stringify(r.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

async function waitCalls(calls: Call[], n: number, ms = 20_000) {
  const until = Date.now() + ms;
  while (calls.length < n) {
    if (Date.now() > until) throw new Error(`only ${calls.length} calls`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test('a mention is POSTed in the Zulip format and the content answered is posted back in the topic', async (t) => {
  const { hamlet } = t.context;
  const hook = await endpoint(() => [200, { content: 'pong from the bot' }]);
  t.teardown(() => hook.server.close());
  const bot = await makeBot(hamlet, hook.url);
  const topic = `ping ${Date.now()}`;
  const sent = await hamlet.post<{ id: number }>('/messages', {
    type: 'stream',
    to: 'Verona',
    topic,
    content: `@**${bot.full}|${bot.id}** ping`,
  });
  t.is(sent.status, 200);
  const narrow = [
    { operator: 'channel', operand: 'Verona' },
    { operator: 'topic', operand: topic },
  ];
  const answer = await waitFor(hamlet, narrow, (m) => m.sender_id === bot.id);
  t.is(answer.content, 'pong from the bot');
  t.is(hook.calls.length, 1);
  t.true(hook.calls[0]!.type.startsWith('application/json'));
  const body = JSON.parse(hook.calls[0]!.body) as Record<string, unknown>;
  t.like(body, { trigger: 'mention', bot_full_name: bot.full, data: `@**${bot.full}|${bot.id}** ping` });
  t.regex(body.bot_email as string, /-bot@/);
  t.is((body.token as string).length, 32);
  t.like(body.message, {
    id: sent.body.id,
    type: 'stream',
    display_recipient: 'Verona',
    subject: topic,
    sender_id: IDS.hamlet,
    content: `@**${bot.full}|${bot.id}** ping`,
  });
  t.regex((body.message as { rendered_content: string }).rendered_content, /user-mention/);
});

test('a direct message triggers direct_message; response_not_required posts nothing', async (t) => {
  const { hamlet } = t.context;
  const hook = await endpoint((call) =>
    (JSON.parse(call.body) as { data: string }).data === 'quiet'
      ? [200, { response_not_required: true }]
      : [200, { content: 'heard you' }],
  );
  t.teardown(() => hook.server.close());
  const bot = await makeBot(hamlet, hook.url);
  await hamlet.post('/messages', { type: 'direct', to: JSON.stringify([bot.id]), content: 'quiet' });
  await waitCalls(hook.calls, 1);
  await hamlet.post('/messages', { type: 'direct', to: JSON.stringify([bot.id]), content: 'loud' });
  const narrow = [{ operator: 'dm', operand: [bot.id] }];
  const answer = await waitFor(hamlet, narrow, (m) => m.sender_id === bot.id);
  t.is(answer.content, 'heard you');
  t.like(JSON.parse(hook.calls[0]!.body), { trigger: 'direct_message', data: 'quiet' });
  const all = await hamlet.get<{ messages: Msg[] }>('/messages', {
    anchor: 'newest',
    num_before: 10,
    num_after: 0,
    narrow: JSON.stringify(narrow),
  });
  t.is(all.body.messages.filter((m) => m.sender_id === bot.id).length, 1, 'no answer to response_not_required');
});

test('the Slack-compatible interface gets form fields and its text is posted back', async (t) => {
  const { hamlet } = t.context;
  const hook = await endpoint(() => [200, { text: 'slack says hi' }]);
  t.teardown(() => hook.server.close());
  const bot = await makeBot(hamlet, hook.url, 2);
  const topic = `slack ${Date.now()}`;
  const sent = await hamlet.post<{ id: number }>('/messages', {
    type: 'stream',
    to: 'Verona',
    topic,
    content: `@**${bot.full}|${bot.id}** hello`,
  });
  const narrow = [
    { operator: 'channel', operand: 'Verona' },
    { operator: 'topic', operand: topic },
  ];
  const answer = await waitFor(hamlet, narrow, (m) => m.sender_id === bot.id);
  t.is(answer.content, 'slack says hi');
  t.true(hook.calls[0]!.type.startsWith('application/x-www-form-urlencoded'));
  const form = Object.fromEntries(new URLSearchParams(hook.calls[0]!.body));
  const verona = await channelId(hamlet, 'Verona');
  t.like(form, {
    channel_id: `C${verona}`,
    channel_name: 'Verona',
    user_id: `U${IDS.hamlet}`,
    user_name: 'King Hamlet',
    text: `@**${bot.full}|${bot.id}** hello`,
    trigger_word: 'mention',
    service_id: String(bot.id),
  });
  t.is(form.token!.length, 32);
  t.regex(form.team_id!, /^T\d+$/);
  t.truthy(form.team_domain);
  t.regex(form.timestamp!, /^\d+$/);
  t.truthy(sent.body.id);
});

test('an error status is reported in the conversation and to the owner', async (t) => {
  const { hamlet } = t.context;
  const hook = await endpoint(() => [400, { msg: 'nope' }]);
  t.teardown(() => hook.server.close());
  const bot = await makeBot(hamlet, hook.url);
  await hamlet.post('/messages', { type: 'direct', to: JSON.stringify([bot.id]), content: 'hi' });
  const failure = await waitFor(hamlet, [{ operator: 'dm', operand: [bot.id] }], (m) =>
    m.content.startsWith('Failure!'),
  );
  t.is(failure.content, 'Failure! Third party responded with 400');
  const notice = await waitFor(hamlet, [{ operator: 'dm', operand: [bot.id] }], (m) => m.content.includes('triggered'));
  t.regex(
    notice.content,
    /^\[A message\]\(.*\/near\/\d+\) to your bot @_\*\*Hook [^*]+\*\* triggered an outgoing webhook\.\nThe webhook got a response with status code \*400\*\.$/,
  );
  t.is(hook.calls.length, 1, 'an answer is not retried');
});

test('an unreachable endpoint is tried again, then the owner is told', async (t) => {
  const { hamlet } = t.context;
  const hook = await endpoint(() => 'drop');
  t.teardown(() => hook.server.close());
  const bot = await makeBot(hamlet, hook.url);
  const topic = `down ${Date.now()}`;
  await hamlet.post('/messages', { type: 'stream', to: 'Verona', topic, content: `@**${bot.full}|${bot.id}** up?` });
  const narrow = [
    { operator: 'channel', operand: 'Verona' },
    { operator: 'topic', operand: topic },
  ];
  const started = Date.now();
  const failure = await waitFor(hamlet, narrow, (m) => m.sender_id === bot.id, 30_000);
  t.is(failure.content, 'Failure! Bot is unavailable');
  t.true(Date.now() - started >= 5_000, 'three retries with backoff (1 s, 2 s, 4 s) came first');
  t.is(hook.calls.length, 4, 'the first try and three retries');
  const notice = await waitFor(hamlet, [{ operator: 'dm', operand: [bot.id] }], (m) => m.content.includes('triggered'));
  t.true(notice.content.endsWith('\nA connection error occurred. Is my bot server down?'));
  t.true(notice.content.includes(`/#narrow/channel/`));
});

test('messages from bots trigger nothing', async (t) => {
  const { hamlet, server } = t.context;
  const hook = await endpoint(() => [200, { content: 'should not happen' }]);
  t.teardown(() => hook.server.close());
  const bot = await makeBot(hamlet, hook.url);
  const sender = await hamlet.post<{ user_id: number; api_key: string }>('/bots', {
    full_name: `Sender ${Date.now()}`,
    short_name: `sender${Date.now()}`,
  });
  const email = (await hamlet.get<{ user: { email: string } }>(`/users/${sender.body.user_id}`)).body.user.email;
  const botClient = server.client.as({ email, apiKey: sender.body.api_key });
  const r = await botClient.post('/messages', { type: 'direct', to: JSON.stringify([bot.id]), content: 'hi' });
  t.is(r.status, 200);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  t.is(hook.calls.length, 0);
});

test('an answer that is not JSON is reported, not retried', async (t) => {
  const { hamlet } = t.context;
  const hook = await endpoint(() => [200, undefined]); // an empty body
  t.teardown(() => hook.server.close());
  const bot = await makeBot(hamlet, hook.url);
  await hamlet.post('/messages', { type: 'direct', to: JSON.stringify([bot.id]), content: 'hi' });
  const narrow = [{ operator: 'dm', operand: [bot.id] }];
  const failure = await waitFor(hamlet, narrow, (m) => m.content.startsWith('Failure!'));
  t.is(failure.content, 'Failure! Invalid JSON in response');
  const notice = await waitFor(hamlet, narrow, (m) => m.content.includes('triggered'));
  t.true(notice.content.endsWith('resulted in the following error:\n> Invalid JSON in response'));
  t.is(hook.calls.length, 1);
});

test("an answer's widget_content becomes the reply's widget; a bad one is reported as the send's error", async (t) => {
  const { hamlet } = t.context;
  const zform = {
    widget_type: 'zform',
    extra_data: { type: 'choices', heading: 'Menu', choices: [{ short_name: 'A', long_name: 'Apple', reply: 'a' }] },
  };
  const hook = await endpoint((call) =>
    (JSON.parse(call.body) as { data: string }).data === 'menu'
      ? [200, { content: 'pick one', widget_content: JSON.stringify(zform) }]
      : [200, { content: 'broken', widget_content: '{"color": "red"}' }],
  );
  t.teardown(() => hook.server.close());
  const bot = await makeBot(hamlet, hook.url);
  const narrow = [{ operator: 'dm', operand: [bot.id] }];
  await hamlet.post('/messages', { type: 'direct', to: JSON.stringify([bot.id]), content: 'menu' });
  const menu = await waitFor(hamlet, narrow, (m) => m.content === 'pick one');
  const { body } = await hamlet.get<{ message: { submessages: Array<{ msg_type: string; content: string }> } }>(
    `/messages/${menu.id}`,
  );
  t.like(body.message.submessages, [{ msg_type: 'widget' }]);
  t.deepEqual(JSON.parse(body.message.submessages[0]!.content), zform);
  await hamlet.post('/messages', { type: 'direct', to: JSON.stringify([bot.id]), content: 'again' });
  const failure = await waitFor(hamlet, narrow, (m) => m.content.startsWith('Failure!'));
  t.is(failure.content, 'Failure! Widgets: widget_type is not in widget_content');
});
