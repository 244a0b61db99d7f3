import { randomBytes } from 'node:crypto';
import { Upload } from 'tus-js-client';
import { assertResponse, type ChatClient } from '@chat/testkit';
import { withServer } from './context.js';
import { checked } from './replies.js';
import { TestServer } from './support.js';

/**
 * Uploads, driven through the HTTP API as clients do: multipart and tus in,
 * bytes out, with access following the messages that link a file.
 * "core team" is private to desdemona, hamlet and iago; othello is not in it.
 */
const test = withServer(['hamlet', 'iago', 'othello']);

type Body = Record<string, unknown>;
type Uploaded = { url: string; uri: string; filename: string };

async function upload(client: ChatClient, data: Uint8Array, name = 'notes.bin', type?: string): Promise<Uploaded> {
  const reply = checked(
    'POST',
    '/user_uploads',
    await client.upload<Uploaded>('/user_uploads', [{ name, data, ...(type ? { type } : {}) }]),
  );
  if (reply.status !== 200) throw new Error(`upload failed: ${JSON.stringify(reply.body)}`);
  return reply.body;
}

/** Downloads from the root (`/user_uploads/...`); the bytes on success, the envelope otherwise. */
async function download(client: ChatClient, url: string) {
  const response = await client.fetch('GET', `/${url}`);
  const bytes = Buffer.from(await response.arrayBuffer());
  const envelope = response.ok ? undefined : (JSON.parse(bytes.toString('utf8')) as Body);
  return { status: response.status, type: response.headers.get('content-type'), bytes, envelope };
}

/** The original's serve_file: a file that exists but is not the caller's to read, or one that does not exist. */
const FORBIDDEN = { result: 'error', code: 'FORBIDDEN', msg: 'You are not authorized to view this file.' };
const MISSING = { result: 'error', code: 'NOT_FOUND', msg: 'File not found' };

const send = async (client: ChatClient, to: string, content: string, topic = 'files') =>
  checked('POST', '/messages', await client.post<{ id: number }>('/messages', { type: 'stream', to, topic, content }))
    .body.id;

test('a binary file round-trips byte for byte, with its content type and a sanitized name', async (t) => {
  const { hamlet } = t.context;
  const data = randomBytes(300 * 1024);
  const sent = await upload(hamlet, data, 'diagram [v2] ü.png', 'image/png');
  t.regex(sent.url, /^\/user_uploads\/\d+\/[0-9a-f]{2}\/[A-Za-z0-9_-]{24}\/diagram-v2-ü\.png$/);
  t.is(sent.uri, sent.url);
  t.is(sent.filename, 'diagram [v2] ü.png');
  const got = await download(hamlet, encodeURI(sent.url));
  t.is(got.status, 200);
  t.is(got.type, 'image/png');
  t.true(got.bytes.equals(data));
});

test('an upload without a file, or with two, is a 400 envelope', async (t) => {
  const { hamlet } = t.context;
  const none = checked('POST', '/user_uploads', await hamlet.upload('/user_uploads', []));
  t.is(none.status, 400);
  t.like(none.body, { code: 'BAD_REQUEST', msg: 'You must specify a file to upload' });
  const file = { name: 'a.txt', data: Buffer.from('a') };
  const two = checked('POST', '/user_uploads', await hamlet.upload('/user_uploads', [file, { ...file, field: 'f2' }]));
  t.is(two.status, 400);
  t.is(two.body.code, 'BAD_REQUEST');
});

test('a file part without a Content-Type (python-requests) and under any field name is a file', async (t) => {
  const { hamlet } = t.context;
  const boundary = 'b0undary';
  const part = (field: string, name: string, data: string) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${name}"\r\n\r\n${data}\r\n`;
  const sendRaw = (body: string) =>
    hamlet.fetch('POST', '/user_uploads', {
      body,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
  for (const [field, name, type] of [
    ['file', 'report.pdf', 'application/pdf'],
    ['whatever', 'notes', 'application/octet-stream'],
  ] as const) {
    const response = await sendRaw(`${part(field, name, `bytes of ${name}`)}--${boundary}--\r\n`);
    const body = (await response.json()) as Uploaded;
    t.is(response.status, 200, JSON.stringify(body));
    t.is(body.filename, name);
    const got = await download(hamlet, body.url);
    t.is(got.type, type);
    t.is(got.bytes.toString('utf8'), `bytes of ${name}`);
  }
});

test('only the uploader reads a file until a message links it; then readers of that message do', async (t) => {
  const { hamlet, iago, othello, server } = t.context;
  const data = randomBytes(4096);
  const { url } = await upload(hamlet, data, 'plan.pdf', 'application/pdf');
  const before = await download(iago, url);
  t.is(before.status, 403);
  t.deepEqual(before.envelope, FORBIDDEN);
  // Only a path that names no upload is missing.
  const unknown = await download(iago, url.replace(/[^/]+$/, 'other.pdf'));
  t.is(unknown.status, 404);
  t.deepEqual(unknown.envelope, MISSING);
  t.is((await download(server.client, url)).status, 401);

  await send(hamlet, 'core team', `The plan: [plan.pdf](${url})`);
  const after = await download(iago, url);
  t.is(after.status, 200);
  t.true(after.bytes.equals(data));
  t.is(after.type, 'application/pdf');
  const outsider = await download(othello, url);
  t.is(outsider.status, 403, 'othello cannot read "core team"');
  t.deepEqual(outsider.envelope, FORBIDDEN);
});

test('the API path answers a temporary URL that works without credentials', async (t) => {
  const { hamlet, server } = t.context;
  const data = Buffer.from('temporary access');
  const { url } = await upload(hamlet, data, 'note.txt', 'text/plain');
  const [, , realm, ...rest] = url.split('/');
  const reply = await hamlet.get<{ url: string }>(`/user_uploads/${realm}/${rest.join('/')}`);
  assertResponse('GET', `/user_uploads/${realm}/${encodeURIComponent(rest.join('/'))}`, reply.status, reply.body);
  t.regex(reply.body.url, /^\/user_uploads\/temporary\/[^/]+\/note\.txt$/);
  const got = await download(server.client, reply.body.url);
  t.is(got.status, 200);
  t.true(got.bytes.equals(data));
  const forged = await download(server.client, reply.body.url.replace(/temporary\/[^/]+\./, 'temporary/AAAA.'));
  t.is(forged.status, 404);
});

test('GET /attachments lists the uploads with the messages linking them; DELETE removes one', async (t) => {
  const { hamlet, iago } = t.context;
  const { url } = await upload(hamlet, Buffer.from('listed'), 'listed.txt', 'text/plain');
  const id = await send(hamlet, 'Denmark', `see [listed.txt](${url})`);
  const list = checked(
    'GET',
    '/attachments',
    await hamlet.get<{ attachments: Body[]; upload_space_used: number }>('/attachments'),
  );
  const mine = list.body.attachments.find((a) => `/user_uploads/${a.path_id}` === url)!;
  t.like(mine, { name: 'listed.txt', size: 6 });
  t.deepEqual(
    (mine.messages as Body[]).map((m) => m.id),
    [id],
  );
  t.true(list.body.upload_space_used >= 6);

  const removed = checked('DELETE', `/attachments/${mine.id}`, await hamlet.delete(`/attachments/${mine.id}`));
  t.is(removed.status, 200);
  // Removed means gone: no longer there for anyone, its uploader included.
  for (const client of [hamlet, iago]) {
    const gone = await download(client, url);
    t.is(gone.status, 404);
    t.deepEqual(gone.envelope, MISSING);
  }
  const again = checked('DELETE', `/attachments/${mine.id}`, await hamlet.delete(`/attachments/${mine.id}`));
  t.like(again.body, { code: 'BAD_REQUEST' });
});

test('an edit that drops the only link to an upload reports it in detached_uploads', async (t) => {
  const { hamlet } = t.context;
  const a = await upload(hamlet, Buffer.from('first'), 'first.txt', 'text/plain');
  const b = await upload(hamlet, Buffer.from('second'), 'second.txt', 'text/plain');
  const id = await send(hamlet, 'Denmark', `[first](${a.url}) and [second](${b.url})`, 'edits');
  // `second` stays linked from another message, so dropping it here detaches nothing.
  await send(hamlet, 'Denmark', `again [second](${b.url})`, 'edits');
  const edit = checked(
    'PATCH',
    `/messages/${id}`,
    await hamlet.patch<{ detached_uploads: Body[] }>(`/messages/${id}`, { content: 'no files any more' }),
  );
  t.is(edit.status, 200);
  t.is(edit.body.detached_uploads.length, 1);
  t.like(edit.body.detached_uploads[0], { name: 'first.txt', path_id: a.url.slice('/user_uploads/'.length), size: 5 });
  t.deepEqual(edit.body.detached_uploads[0]!.messages, []);
  const relinked = await hamlet.patch<{ detached_uploads: Body[] }>(`/messages/${id}`, {
    content: `[first](${a.url}) is back`,
  });
  t.deepEqual(relinked.body.detached_uploads, []);
});

test('a tus upload in several chunks round-trips byte for byte and answers its url', async (t) => {
  const { hamlet, iago, server } = t.context;
  const data = randomBytes(3 * 1024 * 1024 + 12345);
  const { credentials } = hamlet;
  const auth = Buffer.from(`${credentials!.email}:${credentials!.apiKey}`).toString('base64');
  let chunks = 0;
  const body = await new Promise<string>((resolve, reject) => {
    const tus = new Upload(data, {
      endpoint: `${server.server.url}/api/v1/tus`,
      chunkSize: 1024 * 1024,
      retryDelays: null,
      headers: { Authorization: `Basic ${auth}` },
      metadata: { filename: 'big video.mp4', filetype: 'video/mp4' },
      storeFingerprintForResuming: false,
      onChunkComplete: () => void chunks++,
      onSuccess: ({ lastResponse }) => resolve(lastResponse.getBody()),
      onError: reject,
    });
    tus.start();
  });
  t.true(chunks >= 4);
  const finished = JSON.parse(body) as { url: string; filename: string };
  t.is(finished.filename, 'big video.mp4');
  t.regex(finished.url, /^\/user_uploads\/\d+\/[0-9a-f]{2}\/[A-Za-z0-9_-]{24}\/big-video\.mp4$/);
  const got = await download(hamlet, finished.url);
  t.is(got.status, 200);
  t.is(got.type, 'video/mp4');
  t.true(got.bytes.equals(data));
  const other = await download(iago, finished.url);
  t.is(other.status, 403);
  t.deepEqual(other.envelope, FORBIDDEN);
});

test('tus needs credentials, and another user cannot resume or inspect an upload', async (t) => {
  const { hamlet, iago, server } = t.context;
  const anonymous = await fetch(`${server.server.url}/api/v1/tus`, {
    method: 'POST',
    headers: { 'Tus-Resumable': '1.0.0', 'Upload-Length': '10' },
  });
  t.is(anonymous.status, 401);
  const created = await hamlet.fetch('POST', '/tus', { headers: { 'Tus-Resumable': '1.0.0', 'Upload-Length': '10' } });
  t.is(created.status, 201);
  const location = created.headers.get('location')!;
  t.regex(location, /^\/api\/v1\/tus\/[0-9a-f]+$/);
  const head = (client: ChatClient) => client.fetch('HEAD', `/${location}`, { headers: { 'Tus-Resumable': '1.0.0' } });
  t.is((await head(hamlet)).headers.get('upload-offset'), '0');
  t.is((await head(iago)).status, 404);
});

test('an oversize upload is refused with 413 and an envelope, multipart or tus', async (t) => {
  const small = await TestServer.start({ maxFileUploadSizeMib: 1 });
  t.teardown(() => small.stop());
  const hamlet = await small.login('hamlet@zulip.com');
  const big = randomBytes(1024 * 1024 + 1);
  const refused = checked(
    'POST',
    '/user_uploads',
    await hamlet.upload('/user_uploads', [{ name: 'big.bin', data: big }]),
  );
  t.is(refused.status, 413);
  t.like(refused.body, { result: 'error', code: 'REQUEST_TOO_LARGE' });
  // Exactly the limit is allowed.
  await upload(hamlet, big.subarray(0, 1024 * 1024));
  const tus = await hamlet.fetch('POST', '/tus', {
    headers: { 'Tus-Resumable': '1.0.0', 'Upload-Length': String(big.length) },
  });
  t.is(tus.status, 413);
  t.like(JSON.parse(await tus.text()), { result: 'error', code: 'REQUEST_TOO_LARGE' });
});
