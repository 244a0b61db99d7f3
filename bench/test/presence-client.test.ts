import test from 'ava';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Deliveries, LiveClient, PollStats } from '../src/clients.js';
import type { Fleet } from '../src/fleet.js';
import { Http } from '../src/http.js';
import { PresenceLoop } from '../src/presence.js';

/**
 * A simulated client reports presence as the web app does: at page load
 * `ping_only` (the snapshot it loaded with has everyone's), then asking what
 * changed since the snapshot's `presence_last_update_id`, then since each
 * answer's. Against a stub server that records each report.
 */
test('presence reports: ping_only at page load, then last_update_id from the snapshot, then from each answer', async (t) => {
  const reports: Array<Record<string, string>> = [];
  let nextId = 57;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const answer = (value: Record<string, unknown>) => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ result: 'success', msg: '', ...value }));
      };
      if (req.url === '/api/v1/register')
        return answer({ queue_id: 'q1', last_event_id: -1, presence_last_update_id: 41 });
      const fields = Object.fromEntries(new URLSearchParams(body));
      reports.push(fields);
      answer(fields.ping_only === 'true' ? {} : { presences: {}, presence_last_update_id: nextId++ });
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => server.close());
  const http = new Http(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  t.teardown(() => http.close());
  const user = { email: 'user1@example.com', apiKey: 'k'.repeat(32), index: 0, userId: 1 };
  const client = new LiveClient(user, http, new Deliveries(), {}, new PollStats());
  t.is((await client.register()).status, 200);
  // The page load's report, as the chat realm's setup makes it for every client.
  await new PresenceLoop({ clients: [client] } as unknown as Fleet, 60).comeOnline();
  await client.ping();
  await client.ping();
  t.deepEqual(reports, [
    { status: 'active', ping_only: 'true' },
    { status: 'active', slim_presence: 'true', last_update_id: '41' },
    { status: 'active', slim_presence: 'true', last_update_id: '57' },
  ]);
});
