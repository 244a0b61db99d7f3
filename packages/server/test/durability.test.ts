import { rm } from 'node:fs/promises';
import anyTest, { type TestFn } from 'ava';
import { ChatClient, ServerProcess } from '@chat/testkit';
import { MAIN, tempDir } from './support.js';

/** The server as its own process, so that it can be killed with SIGKILL. */
const test = anyTest as TestFn<{ dir: string; server: ServerProcess }>;

test.beforeEach(async (t) => {
  t.context.dir = await tempDir('durability');
  t.context.server = new ServerProcess(['node', MAIN, 'start'], {
    PORT: '0',
    DATA_DIR: t.context.dir,
    LOG_LEVEL: 'warn',
  });
});
test.afterEach.always(async (t) => {
  await t.context.server.kill('SIGKILL');
  await rm(t.context.dir, { recursive: true, force: true });
});

async function loginIago(url: string): Promise<ChatClient> {
  const client = new ChatClient(url);
  const grant = await client.post<{ api_key: string }>('/dev_fetch_api_key', { username: 'iago@zulip.com' });
  return client.as({ email: 'iago@zulip.com', apiKey: grant.body.api_key });
}

async function journalFsyncs(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(/^chat_journal_fsyncs (\d+)/m.exec(text)![1]);
}

test('an acknowledged write is there after kill -9 and a restart', async (t) => {
  const { server } = t.context;
  const iago = await loginIago(await server.start());
  const created = await iago.post<{ user_id: number }>('/users', {
    email: 'survivor@zulip.com',
    password: 'pw',
    full_name: 'Survivor',
  });
  t.is(created.status, 200);
  await server.kill('SIGKILL');

  const again = iago.credentials!;
  const url = await server.start();
  const user = await new ChatClient(url, again).get<{ user: { full_name: string } }>(`/users/${created.body.user_id}`);
  t.is(user.status, 200);
  t.is(user.body.user.full_name, 'Survivor');
});

test('concurrent writes share fsyncs, and all of them survive kill -9', async (t) => {
  const { server } = t.context;
  const url = await server.start();
  const iago = await loginIago(url);
  const before = await journalFsyncs(url);
  const writes = 60;
  const replies = await Promise.all(
    Array.from({ length: writes }, (_, i) =>
      iago.post<{ user_id: number }>('/users', { email: `u${i}@zulip.com`, password: 'pw', full_name: `User ${i}` }),
    ),
  );
  const fsyncs = (await journalFsyncs(url)) - before;
  t.log(`${writes} concurrent acknowledged writes took ${fsyncs} journal fsyncs`);
  t.true(replies.every((r) => r.status === 200));
  t.true(fsyncs < writes / 2, `${fsyncs} fsyncs for ${writes} writes`);

  await server.kill('SIGKILL');
  const after = new ChatClient(await server.start(), iago.credentials);
  const { body } = await after.get<{ members: Array<{ email: string }> }>('/users');
  const emails = new Set(body.members.map((m) => m.email));
  t.is(Array.from({ length: writes }, (_, i) => `u${i}@zulip.com`).filter((e) => emails.has(e)).length, writes);
});
