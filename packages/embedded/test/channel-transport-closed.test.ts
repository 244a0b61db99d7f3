import { fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import type { Logger, TransportMessage } from '@chat/runtime';
import { InProcessTransport, serveChannel } from '../src/index.js';
import { bytes, deferred } from './helpers.js';

const childScript = fileURLToPath(new URL('./fixtures/channel-child.js', import.meta.url));

function recordingLogger(warnings: string[]): Logger {
  const log: Logger = { info() {}, warn: (_obj, msg) => void warnings.push(String(msg)), error() {}, child: () => log };
  return log;
}

// Without a callback, a send on a closed IPC channel fails later, as an 'error' event on the child process
// object (or `process` in the child) that nobody listens to: an uncaught exception that ends the process.

test('replies to a worker that exited are dropped and logged once; this process lives on', async (t) => {
  const child = fork(childScript, ['ask-and-exit'], { serialization: 'advanced', stdio: 'ignore' });
  const inside = new InProcessTransport();
  const asks: TransportMessage[] = [];
  const bothAsked = deferred<void>();
  inside.subscribe('actor.slow.>', (msg) => {
    if (asks.push(msg) === 2) bothAsked.resolve();
  });
  const warnings: string[] = [];
  serveChannel(child, inside, {}, recordingLogger(warnings));
  // 'exit' may come before what the child wrote last is read.
  await Promise.all([once(child, 'exit'), bothAsked.promise]);
  for (const ask of asks) {
    ask.respond?.(bytes('late'));
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await new Promise((resolve) => setTimeout(resolve, 50));
  t.deepEqual(warnings, ['IPC channel closed; sends to it are dropped']);
  await inside.close();
});

test('a worker whose channel the other side closed drops what it sends, logs once, and lives on', async (t) => {
  const child = fork(childScript, ['outlive'], {
    serialization: 'advanced',
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  await once(child, 'message');
  child.disconnect();
  const [code] = (await once(child, 'exit')) as [number | null];
  t.is(code, 0, 'the child was not ended by an uncaught error');
  t.deepEqual(JSON.parse(out), ['IPC channel closed; sends to it are dropped']);
});
