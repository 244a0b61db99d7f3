import { rm } from 'node:fs/promises';
import test from 'ava';
import { createLogger } from '@chat/edge';
import { ChatClient } from '@chat/testkit';
import { loadConfig, startServer } from '../src/index.js';
import { TEST_ADMISSION, TEST_RATE_LIMITS, tempDir } from './support.js';

const POLLS = 8;

/**
 * A graceful stop with long polls held: each poll's connection is cut (the
 * client polls the same queue again once the server is back), and the stop
 * is quiet: a poll the stop cut off is no fault of the server, so no 500 is
 * answered, no line at `warn` or above is written for it, and no poll is
 * asked again after the server stopped.
 */
test('a graceful stop cuts held polls off without a fault logged or a poll asked again', async (t) => {
  const dir = await tempDir('graceful-stop');
  const lines: Array<{ level: number; msg: string; status?: number; closed?: boolean }> = [];
  const log = createLogger({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  const config = loadConfig(
    {},
    { port: 0, dataDir: dir, logLevel: 'info', rateLimits: TEST_RATE_LIMITS, admission: TEST_ADMISSION },
  );
  const server = await startServer(config, undefined, log);
  try {
    const anonymous = new ChatClient(server.url);
    const key = await anonymous.post<{ api_key: string }>('/dev_fetch_api_key', { username: 'iago@zulip.com' });
    const iago = anonymous.as({ email: 'iago@zulip.com', apiKey: key.body.api_key });
    const queues = [];
    for (let i = 0; i < POLLS; i++) {
      const registered = await iago.post<{ queue_id: string; last_event_id: number }>('/register', {
        event_types: '["message"]',
      });
      queues.push(registered.body);
    }
    const polls = queues.map((q) =>
      iago.get('/events', { queue_id: q.queue_id, last_event_id: q.last_event_id }).then(
        (reply) => reply.status,
        () => 'cut',
      ),
    );
    // Every poll waits at its queue (nothing to answer with before its heartbeat).
    await new Promise((resolve) => setTimeout(resolve, 300));
    const before = lines.length;
    await server.close();
    t.deepEqual(await Promise.all(polls), Array<string>(POLLS).fill('cut'));
    // A poll asked again would meet the closed transport after its pause (250 ms).
    await new Promise((resolve) => setTimeout(resolve, 600));
    const after = lines.slice(before);
    t.deepEqual(
      after.filter((line) => line.level >= 40 || line.status === 500),
      [],
    );
    // Each cut poll has its line at `info`, marked as answered to nobody.
    const cut = after.filter((line) => line.msg === 'request' && line.closed);
    t.is(cut.length, POLLS);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
