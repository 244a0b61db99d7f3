import anyTest, { type TestFn } from 'ava';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { FileJournal } from '../src/index.js';
import { collect, TempDirs } from './helpers.js';

const test = anyTest as TestFn<{ dirs: TempDirs }>;

test.before((t) => {
  t.context.dirs = new TempDirs();
});
test.after.always(async (t) => {
  await t.context.dirs.removeAll();
});

const writerScript = fileURLToPath(new URL('./fixtures/journal-writer.js', import.meta.url));

test('every append acknowledged before a kill -9 is there after reopening', async (t) => {
  const dir = await t.context.dirs.make('crash');
  const child = spawn(process.execPath, [writerScript, dir], { stdio: ['ignore', 'pipe', 'inherit'] });
  const acked: number[] = [];
  let buffered = '';
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.on('exit', (code) => reject(new Error(`writer exited early with ${code}`)));
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      acked.push(...lines.map(Number));
      // Kill it mid-stream, while appends are still in flight.
      if (acked.length >= 2000) resolve();
    });
  });
  child.kill('SIGKILL');
  await exited;

  const journal = await FileJournal.open(dir, { segmentBytes: 4096 });
  const positions = new Set((await collect(journal.read({ topic: 'channel', shard: 0 }, 0))).map((r) => r.position));
  const lost = acked.filter((p) => !positions.has(p));
  t.log(`acknowledged ${acked.length}, found ${positions.size} after reopen`);
  t.deepEqual(lost, []);
  // The reopened log is appendable after whatever the kill left behind.
  const [next] = await journal.append({ topic: 'channel', shard: 0 }, [{ key: 'k', data: new Uint8Array(1) }], {
    shard: 0,
    epoch: 1,
  });
  t.true(next! > Math.max(...positions));
  await journal.close();
});
