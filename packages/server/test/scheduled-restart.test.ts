import { rm } from 'node:fs/promises';
import test from 'ava';
import type { ChatClient } from '@chat/testkit';
import { IDS } from './context.js';
import { TestServer, tempDir } from './support.js';

/**
 * A scheduled message survives a restart: its author's UserActor stays
 * resident while it waits, so the restarted server wakes that actor, which
 * arms its timer again and sends the message when due.
 */
async function messagesOf(client: ChatClient): Promise<string[]> {
  const reply = await client.get<{ messages: Array<{ content: string }> }>('/messages', {
    anchor: 'newest',
    num_before: 20,
    num_after: 0,
    apply_markdown: false,
  });
  return reply.status === 200 ? reply.body.messages.map((m) => m.content) : [];
}

test('a message scheduled before a restart is sent after it, once', async (t) => {
  const dataDir = await tempDir('scheduled-restart');
  const content = `scheduled across a restart ${Date.now()}`;
  const first = await TestServer.start({ dataDir });
  try {
    const iago = await first.login('iago@zulip.com');
    const reply = await iago.post<{ scheduled_message_id: number }>('/scheduled_messages', {
      type: 'direct',
      to: JSON.stringify([IDS.hamlet]),
      content,
      scheduled_delivery_timestamp: Math.floor(Date.now() / 1000) + 8,
    });
    t.is(reply.status, 200, JSON.stringify(reply.body));
  } finally {
    await first.server.close();
  }
  const second = await TestServer.start({ dataDir });
  try {
    const hamlet = await second.login('hamlet@zulip.com');
    const until = Date.now() + 40_000;
    let found: string[] = [];
    while (Date.now() < until) {
      found = (await messagesOf(hamlet)).filter((c) => c === content);
      if (found.length > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    t.is(found.length, 1, 'sent once after the restart');
    const iago = await second.login('iago@zulip.com');
    const left = await iago.get<{ scheduled_messages: unknown[] }>('/scheduled_messages');
    t.deepEqual(left.body.scheduled_messages, []);
  } finally {
    await second.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
});
