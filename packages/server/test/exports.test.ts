import { gunzipSync } from 'node:zlib';
import { assertResponse, type ChatClient } from '@chat/testkit';
import { withServer } from './context.js';
import { otherRealm } from './matrix-fixtures.js';
import { none, register, take, type Event } from './queues.js';
import type { Body } from './replies.js';

/**
 * Data exports: administrators ask for one, hear `realm_export` when it
 * starts and when its file is written, list it, and download a .tar.gz of
 * the organization's people, public channels, subscriptions and public
 * messages; private channels stay out; members can do none of it.
 */
const test = withServer(['iago', 'hamlet', 'othello', 'cordelia']);

type Export = { id: number; export_url: string | null; pending: boolean; export_type: number };

/** The files of a .tar.gz, by name. */
function untar(gz: Buffer): Map<string, string> {
  const tar = gunzipSync(gz);
  const files = new Map<string, string>();
  for (let at = 0; at + 512 <= tar.length;) {
    const name = tar
      .subarray(at, at + 100)
      .toString('utf8')
      .replace(/\0.*$/s, '');
    if (name === '') break;
    const size = parseInt(tar.subarray(at + 124, at + 136).toString('ascii'), 8);
    files.set(name, tar.subarray(at + 512, at + 512 + size).toString('utf8'));
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}

test.serial('an administrator exports the public data and downloads it', async (t) => {
  const { iago, hamlet, othello } = t.context;
  const queue = await register(iago, { event_types: ['realm_export'] });
  const visible = `exported ${Date.now()}`;
  await hamlet.post('/messages', { type: 'stream', to: 'Denmark', topic: 'export', content: visible });
  await othello.post('/users/me/subscriptions', { subscriptions: '[{"name": "export secrets"}]', invite_only: true });
  const hidden = `private ${Date.now()}`;
  await othello.post('/messages', { type: 'stream', to: 'export secrets', topic: 'x', content: hidden });

  const made = await iago.post<{ id: number }>('/export/realm', { export_type: 1 });
  assertResponse('POST', '/export/realm', made.status, made.body);
  t.is(made.status, 200);
  const { id } = made.body;
  const ofThis = (e: Event) => (e.exports as Export[]).find((x) => x.id === id);
  const started = await take(queue, (e) => e.type === 'realm_export' && ofThis(e)?.pending === true);
  t.like(ofThis(started), { export_url: null, export_type: 1 });
  const done = await take(queue, (e) => e.type === 'realm_export' && ofThis(e)?.pending === false);
  const url = ofThis(done)!.export_url!;
  t.regex(url, /\/exports\/zulip\/[0-9a-f]{32}\/zulip-export-zulip-\d+\.tar\.gz$/);

  const listed = await iago.get<{ exports: Export[] }>('/export/realm');
  assertResponse('GET', '/export/realm', listed.status, listed.body);
  t.like(
    listed.body.exports.find((x) => x.id === id),
    { pending: false, export_url: url, failed_timestamp: null },
  );

  const path = `//${new URL(url).pathname.slice(1)}`;
  const response = await iago.fetch('GET', path);
  t.is(response.status, 200);
  const files = untar(Buffer.from(await response.arrayBuffer()));
  const dir = `zulip-export-zulip-${id}`;
  const realm = JSON.parse(files.get(`${dir}/realm.json`)!) as Body & {
    zerver_userprofile: Body[];
    zerver_stream: Body[];
  };
  t.true(realm.zerver_userprofile.some((u) => u.email === 'hamlet@zulip.com'));
  t.true(realm.zerver_stream.some((s) => s.name === 'Denmark'));
  t.false(realm.zerver_stream.some((s) => s.name === 'export secrets'));
  const messages = [...files.entries()].filter(([name]) => /messages-\d{6}\.json$/.test(name)).map(([, text]) => text);
  t.true(messages.some((text) => text.includes(visible)));
  t.false(messages.some((text) => text.includes(hidden)));
  t.false([...files.values()].some((text) => text.includes('api_key') || text.includes('password')));

  // Members may not download it, nor ask for one, nor list them.
  const theirs = await hamlet.fetch('GET', path);
  t.is(theirs.status, 400);
  t.like(await theirs.json(), { code: 'UNAUTHORIZED_PRINCIPAL', msg: 'Must be an organization administrator' });
  t.is((await t.context.server.client.fetch('GET', path)).status, 401);
  // Nor another organization's owner: its realm holds no such file.
  const other = await otherRealm(t.context.server);
  t.is((await other.owner.client.fetch('GET', path)).status, 404);
  for (const reply of [await hamlet.post('/export/realm', {}), await hamlet.get('/export/realm')]) {
    t.like(reply.body, { code: 'UNAUTHORIZED_PRINCIPAL', msg: 'Must be an organization administrator' });
  }
});

test.serial('consents follow allow_private_data_export', async (t) => {
  const { iago, hamlet } = t.context;
  const consent = async () => {
    const reply = await iago.get<{ export_consents: Array<{ user_id: number; consented: boolean }> }>(
      '/export/realm/consents',
    );
    assertResponse('GET', '/export/realm/consents', reply.status, reply.body);
    return reply.body.export_consents.find((c) => c.user_id === 10)?.consented;
  };
  t.is(await consent(), false);
  const queue = await register(iago, { event_types: ['realm_export_consent'] });
  const theirs = await register(hamlet, { event_types: ['realm_export_consent', 'user_settings'] });
  t.is((await hamlet.patch('/settings', { allow_private_data_export: true })).status, 200);
  t.is(await consent(), true);
  t.like(await take(queue, (e) => e.type === 'realm_export_consent'), { user_id: 10, consented: true });
  // A member is no administrator: their queue hears their own setting change only.
  await take(theirs, (e) => e.type === 'user_settings');
  t.true(await none(theirs, (e) => e.type === 'realm_export_consent'));
  t.like((await hamlet.get('/export/realm/consents')).body, { code: 'UNAUTHORIZED_PRINCIPAL' });
});

/** The files of an export once written, downloaded by the administrator. */
async function exported(iago: ChatClient, id: number): Promise<string[]> {
  for (let i = 0; i < 200; i++) {
    const { exports } = (await iago.get<{ exports: Export[] }>('/export/realm')).body;
    const url = exports.find((e) => e.id === id)?.export_url;
    if (url) {
      const response = await iago.fetch('GET', `//${new URL(url).pathname.slice(1)}`);
      return [...untar(Buffer.from(await response.arrayBuffer())).values()];
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`export ${id} not written`);
}

test.serial('a full export adds the private data of those who consented, and no one else', async (t) => {
  const { iago, othello, cordelia } = t.context;
  const stamp = Date.now();
  t.is((await othello.patch('/settings', { allow_private_data_export: true })).status, 200);
  await othello.post('/users/me/subscriptions', { subscriptions: '[{"name": "consented room"}]', invite_only: true });
  await othello.post('/messages', { type: 'stream', to: 'consented room', topic: 'x', content: `room ${stamp}` });
  await othello.post('/messages', { type: 'private', to: '[8]', content: `dm from othello ${stamp}` });
  await cordelia.post('/users/me/subscriptions', {
    subscriptions: '[{"name": "unconsented room"}]',
    invite_only: true,
  });
  await cordelia.post('/messages', { type: 'stream', to: 'unconsented room', topic: 'x', content: `shut ${stamp}` });
  await cordelia.post('/messages', { type: 'private', to: '[11]', content: `dm from cordelia ${stamp}` });

  const full = (await iago.post<{ id: number }>('/export/realm', { export_type: 2 })).body.id;
  const text = (await exported(iago, full)).join('\n');
  t.true(text.includes(`room ${stamp}`));
  t.true(text.includes(`dm from othello ${stamp}`));
  t.true(text.includes('consented room'));
  t.false(text.includes(`shut ${stamp}`));
  t.false(text.includes('unconsented room'));
  t.false(text.includes(`dm from cordelia ${stamp}`));
});

test.serial('the type is checked, and five exports a week at most', async (t) => {
  const { iago } = t.context;
  t.like((await iago.post('/export/realm', { export_type: 3 })).body, {
    code: 'BAD_REQUEST',
    msg: 'Invalid export type.',
  });
  const made = (await iago.get<{ exports: Export[] }>('/export/realm')).body.exports.length;
  for (let i = made; i < 5; i++) t.is((await iago.post('/export/realm', { export_type: 2 })).status, 200);
  t.like((await iago.post('/export/realm', {})).body, { code: 'BAD_REQUEST', msg: 'Exceeded rate limit.' });
  // The server stops after this test: let the exports finish writing first.
  for (let i = 0; i < 100; i++) {
    const { exports } = (await iago.get<{ exports: Export[] }>('/export/realm')).body;
    if (!exports.some((e) => e.pending)) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const { exports } = (await iago.get<{ exports: Export[] }>('/export/realm')).body;
  t.true(exports.every((e) => !e.pending && e.export_url !== null));
});
