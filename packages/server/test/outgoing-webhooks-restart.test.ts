import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
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

async function listen(port: number, bodies: string[]): Promise<Server> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      bodies.push(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ content: 'after the restart' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return server;
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

test('a call owed when the server stops is made after the restart, once', async (t) => {
  const dataDir = await tempDir('outgoing-restart');
  const bodies: string[] = [];
  // A port that nothing listens on yet: the first server's call cannot connect.
  const probe = await listen(0, []);
  const port = (probe.address() as AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
  let botId: number;
  const first = await TestServer.start({ dataDir, ...config });
  try {
    const hamlet = await first.login('hamlet@zulip.com');
    const made = await hamlet.post<{ user_id: number }>('/bots', {
      full_name: 'Restart Hook',
      short_name: 'restarthook',
      bot_type: 3,
      payload_url: JSON.stringify(`http://127.0.0.1:${port}/hook`),
    });
    t.is(made.status, 200, JSON.stringify(made.body));
    botId = made.body.user_id;
    const sent = await hamlet.post('/messages', { type: 'direct', to: JSON.stringify([botId]), content: 'owed' });
    t.is(sent.status, 200);
    await sleep(500); // recorded as owed; its first try has failed
  } finally {
    await first.server.close();
  }
  // The stopped server's own retries (in this test's process) end within 7 s; only then does the bot come up.
  await sleep(8_000);
  const endpoint = await listen(port, bodies);
  t.teardown(() => endpoint.close());
  const second = await TestServer.start({ dataDir, ...config });
  t.teardown(() => second.stop());
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
  const dataDir = await tempDir('outgoing-restart-other');
  const bodies: string[] = [];
  const probe = await listen(0, []);
  const port = (probe.address() as AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
  const first = await TestServer.start({ dataDir, ...config });
  try {
    const { owner } = await otherRealm(first);
    const made = await owner.client.post<{ user_id: number }>('/bots', {
      full_name: 'Other Hook',
      short_name: 'otherhook',
      bot_type: 3,
      payload_url: JSON.stringify(`http://127.0.0.1:${port}/hook`),
    });
    t.is(made.status, 200, JSON.stringify(made.body));
    const to = JSON.stringify([made.body.user_id]);
    const sent = await owner.client.post('/messages', { type: 'direct', to, content: 'owed elsewhere' });
    t.is(sent.status, 200);
    await sleep(500);
  } finally {
    await first.server.close();
  }
  await sleep(8_000);
  const endpoint = await listen(port, bodies);
  t.teardown(() => endpoint.close());
  // Nobody touches the other realm after the restart: only the sweep can find its owed call.
  const second = await TestServer.start({ dataDir, ...config });
  t.teardown(() => second.stop());
  const until = Date.now() + 20_000;
  while (Date.now() < until && bodies.length === 0) await sleep(300);
  await sleep(1_000);
  t.is(bodies.length, 1);
  t.like(JSON.parse(bodies[0]!), { data: 'owed elsewhere', trigger: 'direct_message' });
});
