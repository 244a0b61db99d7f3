import test from 'ava';
import { bytes, freshNamespace, natsUrl, Transports } from './nats-support.js';

// Numbers for the notes, measured against the shared nats-server; nothing here asserts a time.
const url = natsUrl();
const transports = new Transports();
test.after.always(() => transports.closeAll());

test('latency and throughput (logged, not asserted)', async (t) => {
  const namespace = freshNamespace();
  const server = await transports.connect(url, namespace);
  const client = await transports.connect(url, namespace);
  server.subscribe('echo', (msg) => msg.respond?.(msg.data));
  await server.flush();
  const payload = bytes('x'.repeat(200));
  await client.request('echo', payload, 5000);

  const times: number[] = [];
  for (let i = 0; i < 1000; i++) {
    const start = performance.now();
    await client.request('echo', payload, 10_000);
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  const mean = times.reduce((a, b) => a + b) / times.length;
  const pct = (p: number) => times[Math.floor(p * (times.length - 1))]!.toFixed(3);
  t.log(`1,000 sequential requests: mean ${mean.toFixed(3)} ms, p50 ${pct(0.5)} ms, p99 ${pct(0.99)} ms`);

  const start = performance.now();
  const replies = await Promise.all(Array.from({ length: 10_000 }, () => client.request('echo', payload, 60_000)));
  const seconds = (performance.now() - start) / 1000;
  t.log(`10,000 concurrent requests: ${seconds.toFixed(2)} s, ${Math.round(10_000 / seconds)} requests/s`);
  t.is(replies.length, 10_000);
});
