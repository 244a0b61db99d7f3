import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChatClient } from '@chat/testkit';
import { loadConfig } from '../src/index.js';
import { withServer } from './context.js';

/**
 * Outgoing webhook URLs on loopback or private addresses are refused unless
 * the server allows them (development mode or OUTGOING_WEBHOOKS_ALLOW_PRIVATE),
 * as the original's egress proxy refuses them.
 */
const test = withServer(['hamlet'], { allowPrivateWebhooks: false });

async function failureIn(client: ChatClient, botId: number): Promise<string> {
  const until = Date.now() + 20_000;
  for (;;) {
    const r = await client.get<{ messages: { sender_id: number; content: string }[] }>('/messages', {
      anchor: 'newest',
      num_before: 10,
      num_after: 0,
      narrow: JSON.stringify([{ operator: 'dm', operand: [botId] }]),
      apply_markdown: 'false',
    });
    const found = r.status === 200 ? r.body.messages.find((m) => m.sender_id === botId) : undefined;
    if (found) return found.content;
    if (Date.now() > until) throw new Error('no answer from the bot');
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

test('a loopback URL is not called, and the failure is reported', async (t) => {
  const { hamlet } = t.context;
  let calls = 0;
  const hook = createServer((_req, res) => {
    calls += 1;
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"content":"called"}');
  });
  await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
  t.teardown(() => hook.close());
  const url = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
  const short = `egress${Date.now()}`;
  const bot = await hamlet.post<{ user_id: number }>('/bots', {
    full_name: `Egress ${short}`,
    short_name: short,
    bot_type: 3,
    payload_url: JSON.stringify(url),
    interface_type: 1,
  });
  t.is(bot.status, 200);
  await hamlet.post('/messages', { type: 'direct', to: JSON.stringify([bot.body.user_id]), content: 'hi' });
  t.is(
    await failureIn(hamlet, bot.body.user_id),
    "Failure! The outgoing webhook URL's host 127.0.0.1 is a private address.",
  );
  t.is(calls, 0);
});

test('private addresses are allowed in development mode or by OUTGOING_WEBHOOKS_ALLOW_PRIVATE', (t) => {
  t.true(loadConfig({}).allowPrivateWebhooks);
  t.false(loadConfig({ CHAT_MODE: 'production' }).allowPrivateWebhooks);
  t.true(loadConfig({ CHAT_MODE: 'production', OUTGOING_WEBHOOKS_ALLOW_PRIVATE: 'true' }).allowPrivateWebhooks);
});
