import { rm } from 'node:fs/promises';
import test from 'ava';
import type { ChatClient } from '@chat/testkit';
import { TestServer, tempDir } from './support.js';

/**
 * A poll's votes survive a restart: the conversation's journal and
 * snapshots keep its submessages, and the ids of those added afterwards
 * go on from where they were.
 */
type Submessage = { id: number; sender_id: number; content: string };

async function submessagesOf(client: ChatClient, id: number): Promise<Submessage[]> {
  const reply = await client.get<{ message: { submessages: Submessage[] } }>(`/messages/${id}`);
  if (reply.status !== 200) throw new Error(`${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.message.submessages;
}

const vote = (client: ChatClient, message_id: number, content: string) =>
  client.post('/submessage', { message_id, msg_type: 'widget', content });

test("a poll's submessages are there after a restart, and new ones take the next ids", async (t) => {
  const dataDir = await tempDir('submessages-restart');
  const first = await TestServer.start({ dataDir });
  let id = 0;
  try {
    const iago = await first.login('iago@zulip.com');
    const hamlet = await first.login('hamlet@zulip.com');
    const sent = await iago.post<{ id: number }>('/messages', {
      type: 'stream',
      to: 'Verona',
      topic: 'restart poll',
      content: '/poll Still there?\nyes\nno',
    });
    id = sent.body.id;
    t.is((await vote(hamlet, id, '{"type":"vote","key":"canned,0","vote":1}')).status, 200);
  } finally {
    await first.server.close();
  }
  const second = await TestServer.start({ dataDir });
  try {
    const hamlet = await second.login('hamlet@zulip.com');
    const before = await submessagesOf(hamlet, id);
    t.deepEqual(
      before.map((s) => s.id - id * 1_000_000),
      [0, 1],
    );
    t.is(before[1]!.content, '{"type":"vote","key":"canned,0","vote":1}');
    t.is((await vote(hamlet, id, '{"type":"vote","key":"canned,0","vote":-1}')).status, 200);
    t.deepEqual(
      (await submessagesOf(hamlet, id)).map((s) => s.id - id * 1_000_000),
      [0, 1, 2],
    );
  } finally {
    await second.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
});
