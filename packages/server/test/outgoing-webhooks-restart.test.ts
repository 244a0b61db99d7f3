import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import test, { type ExecutionContext } from 'ava';
import type { ChatClient } from '@chat/testkit';
import { otherRealm } from './matrix-fixtures.js';
import { TestServer, tempDir } from './support.js';

/**
 * A call owed to an outgoing webhook bot survives a restart: the realm
 * records it before it is made, and the restarted server makes it. On the
 * cluster target the restart is of the whole local cluster (its edges and
 * actor hosts), and an edge resumes only calls older than the grace, here
 * 5 s (the stopped server's retries are over by then).
 */
const config = { owedWebhookGraceMs: 5_000 };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The bot's endpoint, holding its port from the start (a port let go could be taken by another
 * test's server, which would answer 404): until `up()` it drops every connection, which the
 * caller counts as "no connection" and retries; after, it answers and records each body.
 */
async function endpoint(bodies: string[]): Promise<{ server: Server; port: number; up: () => void }> {
  let answering = false;
  const server = createServer((req, res) => {
    if (!answering) return void req.socket.destroy();
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      bodies.push(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ content: 'after the restart' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, up: () => (answering = true) };
}

async function botMessages(client: ChatClient, botId: number): Promise<string[]> {
  const reply = await client.get<{ messages: Array<{ sender_id: number; content: string }> }>('/messages', {
    anchor: 'newest',
    num_before: 20,
    num_after: 0,
    apply_markdown: false,
    narrow: JSON.stringify([{ operator: 'dm', operand: [botId] }]),
  });
  return reply.status === 200 ? reply.body.messages.filter((m) => m.sender_id === botId).map((m) => m.content) : [];
}

/**
 * Makes an outgoing webhook bot (as `owner` of the first server) whose endpoint does not answer yet,
 * sends it a direct message, stops the server, lets the bot's endpoint answer once the stopped
 * server's retries are over, and starts a second server on the same data. Returns the bot, the
 * second server and the bodies the endpoint got.
 */
async function owedAcrossRestart(
  t: ExecutionContext,
  name: string,
  owner: (first: TestServer) => Promise<ChatClient>,
  content: string,
): Promise<{ botId: number; second: TestServer; bodies: string[] }> {
  const dataDir = await tempDir(`outgoing-restart-${name}`);
  const bodies: string[] = [];
  // The endpoint drops connections for now: the first server's call cannot get through.
  const hook = await endpoint(bodies);
  t.teardown(() => hook.server.close());
  const { port } = hook;
  let botId: number;
  const first = await TestServer.start({ dataDir, ...config });
  try {
    const client = await owner(first);
    const made = await client.post<{ user_id: number }>('/bots', {
      full_name: `Restart Hook ${name}`,
      short_name: `restarthook${name}`,
      bot_type: 3,
      payload_url: JSON.stringify(`http://127.0.0.1:${port}/hook`),
    });
    t.is(made.status, 200, JSON.stringify(made.body));
    botId = made.body.user_id;
    const sent = await client.post('/messages', { type: 'direct', to: JSON.stringify([botId]), content });
    t.is(sent.status, 200);
    await sleep(500); // recorded as owed; its first try has failed
  } finally {
    await first.server.close();
  }
  // The stopped server's own retries (in this test's process) end within 7 s; only then does the bot come up.
  await sleep(8_000);
  hook.up();
  const second = await TestServer.start({ dataDir, ...config });
  t.teardown(() => second.stop());
  return { botId, second, bodies };
}

test('a call owed when the server stops is made after the restart, once', async (t) => {
  const { botId, second, bodies } = await owedAcrossRestart(t, 'dev', (s) => s.login('hamlet@zulip.com'), 'owed');
  const hamlet = await second.login('hamlet@zulip.com');
  const until = Date.now() + 20_000;
  let answers: string[] = [];
  while (Date.now() < until && !answers.includes('after the restart')) {
    await sleep(300);
    answers = await botMessages(hamlet, botId);
  }
  t.deepEqual(answers, ['after the restart']);
  t.is(bodies.length, 1);
  t.like(JSON.parse(bodies[0]!), { data: 'owed', trigger: 'direct_message' });
});

test('a call owed in a realm nobody uses after the restart is made too', async (t) => {
  const other = async (first: TestServer) => (await otherRealm(first)).owner.client;
  const { bodies } = await owedAcrossRestart(t, 'other', other, 'owed elsewhere');
  // Nobody touches the other realm after the restart: only the sweep can find its owed call.
  const until = Date.now() + 20_000;
  while (Date.now() < until && bodies.length === 0) await sleep(300);
  await sleep(1_000);
  t.is(bodies.length, 1);
  t.like(JSON.parse(bodies[0]!), { data: 'owed elsewhere', trigger: 'direct_message' });
});
