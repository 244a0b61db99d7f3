import anyTest, { type TestFn } from 'ava';
import { createHash, randomBytes } from 'node:crypto';
import { CassandraFileStore } from '../src/index.js';
import { bytes, cassandraOptions, collect, Keyspaces, text } from './cassandra-support.js';

const test = anyTest as TestFn<{ keyspaces: Keyspaces; ns: string; files: CassandraFileStore }>;

test.before(async (t) => {
  t.context.keyspaces = new Keyspaces();
  t.context.ns = t.context.keyspaces.name();
  t.context.files = await CassandraFileStore.open(cassandraOptions(t.context.ns));
});
test.after.always(async (t) => {
  await t.context.files?.close();
  await t.context.keyspaces?.dropAll();
});

async function* chunks(data: Uint8Array, size: number): AsyncIterable<Uint8Array> {
  for (let i = 0; i < data.length; i += size) yield data.subarray(i, i + size);
}

const concat = async (body: AsyncIterable<Uint8Array>) => Buffer.concat(await collect(body));
const chunkRows = async (t: { context: { keyspaces: Keyspaces; ns: string } }) =>
  (await t.context.keyspaces.query(`SELECT COUNT(*) AS n FROM ${t.context.ns}.file_chunks`))[0]!['n'] as bigint;

// Serial tests run before the concurrent ones, so they can count every chunk row of the namespace.
test.serial('an upload that fails midway leaves nothing visible and no chunks', async (t) => {
  const { files } = t.context;
  const before = await chunkRows(t);
  async function* failing(): AsyncIterable<Uint8Array> {
    yield randomBytes(600 * 1024); // more than two chunks reach Cassandra first
    throw new Error('client went away');
  }
  await t.throwsAsync(files.put('upload.bin', failing(), 'application/octet-stream'), { message: /went away/ });
  t.is(await files.stat('upload.bin'), undefined);
  t.is(await files.get('upload.bin'), undefined);
  t.is(await chunkRows(t), before);
});

test.serial('replaced and deleted files lose their chunks after the grace period', async (t) => {
  const files = await CassandraFileStore.open({ ...cassandraOptions(t.context.ns), graceMs: 3_600_000 });
  const before = await chunkRows(t);
  await files.put('grace', chunks(randomBytes(300 * 1024), 4096), 'application/octet-stream');
  await files.put('grace', chunks(bytes('second'), 2), 'text/plain');
  await files.put('gone', chunks(bytes('short-lived'), 5), 'text/plain');
  await files.delete('gone');
  // Old chunks stay for readers within the grace period ...
  t.is(await chunkRows(t), before + 2n + 1n + 1n);
  // ... and close drops them at once rather than leaving them behind.
  await files.close();
  t.is(await chunkRows(t), before + 1n);
  t.is(text(await concat((await t.context.files.get('grace'))!)), 'second');
});

test('a file round-trips byte for byte with its content type', async (t) => {
  const { files } = t.context;
  const data = randomBytes(300_000);
  const stat = await files.put('2/ab/cd/photo.png', chunks(data, 64 * 1024 + 7), 'image/png');
  t.deepEqual(stat, { size: data.length, contentType: 'image/png' });
  t.deepEqual(await files.stat('2/ab/cd/photo.png'), stat);
  const body = await files.get('2/ab/cd/photo.png');
  t.truthy(body);
  t.true((await concat(body!)).equals(data));
});

test('an empty file and an overwrite', async (t) => {
  const { files } = t.context;
  await files.put('f', chunks(new Uint8Array(0), 1), 'text/plain');
  t.deepEqual(await files.stat('f'), { size: 0, contentType: 'text/plain' });
  t.is((await concat((await files.get('f'))!)).length, 0);
  await files.put('f', chunks(bytes('{"a":1}'), 3), 'application/json');
  t.deepEqual(await files.stat('f'), { size: 7, contentType: 'application/json' });
  t.is(text(await concat((await files.get('f'))!)), '{"a":1}');
});

test('a reader keeps the version it opened while the path is replaced', async (t) => {
  const { files } = t.context;
  const oldData = randomBytes(700 * 1024);
  const newData = randomBytes(500 * 1024);
  await files.put('swap/me', chunks(oldData, 100_000), 'application/octet-stream');
  const oldBody = (await files.get('swap/me'))![Symbol.asyncIterator]();
  const first = await oldBody.next(); // mid-stream when the overwrite lands
  await files.put('swap/me', chunks(newData, 100_000), 'image/jpeg');
  const rest = [];
  for (let r = await oldBody.next(); !r.done; r = await oldBody.next()) rest.push(r.value);
  t.true(Buffer.concat([first.value as Uint8Array, ...rest]).equals(oldData));
  t.true((await concat((await files.get('swap/me'))!)).equals(newData));
  t.deepEqual(await files.stat('swap/me'), { size: newData.length, contentType: 'image/jpeg' });
});

test('concurrent puts of one path leave one complete version', async (t) => {
  const { files } = t.context;
  const versions = [randomBytes(400_000), randomBytes(300_000), randomBytes(500_000)];
  await Promise.all(versions.map((v, i) => files.put('race', chunks(v, 65_536), `v/${i}`)));
  const stat = (await files.stat('race'))!;
  const i = Number(stat.contentType.slice(2));
  t.is(stat.size, versions[i]!.length);
  t.true((await concat((await files.get('race'))!)).equals(versions[i]!));
});

test('paths that could escape the root are refused', async (t) => {
  const { files } = t.context;
  for (const path of ['../x', 'a/../../x', 'a/..', '/etc/passwd', 'a//b', './a', '', 'a\\..\\b', 'a\u0000b']) {
    await t.throwsAsync(files.put(path, chunks(bytes('x'), 1), 'text/plain'), { message: /invalid file path/ }, path);
    await t.throwsAsync(files.get(path), { message: /invalid file path/ }, path);
    await t.throwsAsync(files.stat(path), { message: /invalid file path/ }, path);
    await t.throwsAsync(files.delete(path), { message: /invalid file path/ }, path);
  }
});

test('a missing file is undefined, and deleting it is fine', async (t) => {
  const { files } = t.context;
  t.is(await files.get('no/such/file'), undefined);
  t.is(await files.stat('no/such/file'), undefined);
  await files.delete('no/such/file');
  await files.put('there', chunks(bytes('x'), 1), 'text/plain');
  await files.delete('there');
  t.is(await files.stat('there'), undefined);
  t.is(await files.get('there'), undefined);
});

test('a 25 MiB file round-trips', async (t) => {
  t.timeout(300_000);
  const { files } = t.context;
  const data = randomBytes(25 * 1024 * 1024);
  const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
  let started = Date.now();
  await files.put('big/25mib.bin', chunks(data, 1 << 20), 'application/octet-stream');
  t.log(`put 25 MiB in ${Date.now() - started} ms`);
  t.deepEqual(await files.stat('big/25mib.bin'), { size: data.length, contentType: 'application/octet-stream' });
  started = Date.now();
  const hash = createHash('sha256');
  let size = 0;
  for await (const piece of (await files.get('big/25mib.bin'))!) {
    hash.update(piece);
    size += piece.length;
  }
  t.log(`read 25 MiB in ${Date.now() - started} ms`);
  t.is(size, data.length);
  t.is(hash.digest('hex'), sha(data));
});
