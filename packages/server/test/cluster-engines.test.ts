import test from 'ava';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { ChatClient } from '@chat/testkit';
import { startProcessCluster, sleep, type ProcessCluster } from './cluster-support.js';

/**
 * The engines restart under a running cluster: NATS, then Kafka. The service
 * must come back by itself and keep every acknowledged write. This file
 * restarts the shared engines, so `npm test` runs it alone, after the rest.
 */
const run = promisify(execFile);
const INFRA = fileURLToPath(new URL('../../../../infra/', import.meta.url));

async function restart(engine: 'nats' | 'kafka'): Promise<void> {
  await run('bash', [`${INFRA}${engine}.sh`, 'restart'], { env: process.env, timeout: 120_000 });
}

interface Ack {
  content: string;
  id: number;
}

async function sendUntilOk(client: ChatClient, content: string, acked: Ack[], limitMs: number): Promise<number> {
  const started = Date.now();
  for (;;) {
    const reply = await client
      .post<{ id: number }>('/messages', { type: 'stream', to: 'Verona', topic: 'engines', content })
      .catch(() => undefined);
    if (reply?.status === 200) {
      acked.push({ content, id: reply.body.id });
      return Date.now() - started;
    }
    if (Date.now() - started > limitMs) throw new Error(`no successful send within ${limitMs} ms`);
    await sleep(250);
  }
}

let cluster: ProcessCluster;

test.before(async () => {
  cluster = await startProcessCluster();
});

test.after.always(async () => {
  await cluster?.close();
});

test.serial(
  'NATS, then Kafka, restarted: the service resumes by itself and keeps every acknowledged write',
  async (t) => {
    const iago = await cluster.login('iago@zulip.com');
    const acked: Ack[] = [];
    for (let i = 0; i < 5; i++) await sendUntilOk(iago, `engines-before-${i}`, acked, 10_000);
    const timings: string[] = [];
    for (const engine of ['nats', 'kafka'] as const) {
      const began = Date.now();
      await restart(engine);
      const restarted = Date.now() - began;
      const back = await sendUntilOk(iago, `engines-after-${engine}`, acked, 60_000);
      for (let i = 0; i < 5; i++) await sendUntilOk(iago, `engines-after-${engine}-${i}`, acked, 10_000);
      timings.push(`${engine}: restart took ${restarted} ms, first send succeeded ${back} ms after it`);
    }
    const reply = await iago.get<{ messages: Array<{ id: number; content: string }> }>('/messages', {
      anchor: 'newest',
      num_before: 1000,
      num_after: 0,
      apply_markdown: false,
      narrow: [
        { operator: 'channel', operand: 'Verona' },
        { operator: 'topic', operand: 'engines' },
      ],
    });
    const stored = reply.body.messages;
    const missing = acked.filter((a) => !stored.some((m) => m.id === a.id && m.content === a.content));
    const contents = stored.map((m) => m.content);
    const doubled = contents.filter((c, i) => contents.indexOf(c) !== i);
    t.log(
      `${timings.join('; ')}; ${acked.length} sends acknowledged, ${missing.length} missing, ${doubled.length} doubled`,
    );
    t.deepEqual(missing, []);
    t.deepEqual(doubled, []);
    t.deepEqual(cluster.checker.overlaps(), []);
  },
);
