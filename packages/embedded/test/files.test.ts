import anyTest, { type TestFn } from 'ava';
import { randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { LocalFileStore } from '../src/index.js';
import { bytes, collect, TempDirs, text } from './helpers.js';

const test = anyTest as TestFn<{ dirs: TempDirs }>;

test.before((t) => {
  t.context.dirs = new TempDirs();
});
test.after.always(async (t) => {
  await t.context.dirs.removeAll();
});

async function* chunks(data: Uint8Array, size: number): AsyncIterable<Uint8Array> {
  for (let i = 0; i < data.length; i += size) yield data.subarray(i, i + size);
}

const concat = async (body: AsyncIterable<Uint8Array>) => Buffer.concat(await collect(body));

test('a file round-trips byte for byte with its content type', async (t) => {
  const store = await LocalFileStore.open(await t.context.dirs.make('files-roundtrip'));
  const data = randomBytes(300_000);
  const stat = await store.put('2/ab/cd/photo.png', chunks(data, 64 * 1024 + 7), 'image/png');
  t.deepEqual(stat, { size: data.length, contentType: 'image/png' });
  t.deepEqual(await store.stat('2/ab/cd/photo.png'), stat);
  const body = await store.get('2/ab/cd/photo.png');
  t.truthy(body);
  t.true((await concat(body!)).equals(data));
  await store.close();
});

test('an empty file and an overwrite', async (t) => {
  const store = await LocalFileStore.open(await t.context.dirs.make('files-overwrite'));
  await store.put('f', chunks(new Uint8Array(0), 1), 'text/plain');
  t.deepEqual(await store.stat('f'), { size: 0, contentType: 'text/plain' });
  t.is((await concat((await store.get('f'))!)).length, 0);
  await store.put('f', chunks(bytes('{"a":1}'), 3), 'application/json');
  t.deepEqual(await store.stat('f'), { size: 7, contentType: 'application/json' });
  t.is(text(await concat((await store.get('f'))!)), '{"a":1}');
  await store.close();
});

test('paths that could escape the root are refused', async (t) => {
  const root = await t.context.dirs.make('files-escape');
  const store = await LocalFileStore.open(root);
  for (const path of ['../x', 'a/../../x', 'a/..', '/etc/passwd', 'a//b', './a', '', 'a\\..\\b', 'a\u0000b']) {
    await t.throwsAsync(store.put(path, chunks(bytes('x'), 1), 'text/plain'), { message: /invalid file path/ }, path);
    await t.throwsAsync(store.get(path), { message: /invalid file path/ }, path);
    await t.throwsAsync(store.stat(path), { message: /invalid file path/ }, path);
    await t.throwsAsync(store.delete(path), { message: /invalid file path/ }, path);
  }
  t.deepEqual((await readdir(root)).sort(), ['files', 'tmp']);
  t.deepEqual(await readdir(join(root, 'files')), []);
  await store.close();
});

test('a missing file is undefined, and deleting it is fine', async (t) => {
  const store = await LocalFileStore.open(await t.context.dirs.make('files-missing'));
  t.is(await store.get('no/such/file'), undefined);
  t.is(await store.stat('no/such/file'), undefined);
  await store.delete('no/such/file');
  await store.put('there', chunks(bytes('x'), 1), 'text/plain');
  await store.delete('there');
  t.is(await store.stat('there'), undefined);
  await store.close();
});

test('an upload that fails midway leaves nothing visible', async (t) => {
  const root = await t.context.dirs.make('files-failed');
  const store = await LocalFileStore.open(root);
  async function* failing(): AsyncIterable<Uint8Array> {
    yield bytes('partial');
    throw new Error('client went away');
  }
  await t.throwsAsync(store.put('upload.bin', failing(), 'application/octet-stream'), { message: /went away/ });
  t.is(await store.stat('upload.bin'), undefined);
  t.deepEqual(await readdir(join(root, 'tmp')), []);
  await store.close();
});
