import anyTest, { type TestFn } from 'ava';
import {
  fuzzCases,
  runPool,
  sendFuzz,
  type ChatClient,
  type FuzzAnswer,
  type FuzzCase,
  type Reply,
} from '@chat/testkit';
import { TestServer } from './support.js';

/**
 * Hostile input against every operation the server documents: the cases come
 * from its own GET /api/v1/openapi.json (@chat/testkit's fuzz*.ts), so a new
 * route is fuzzed the day it is added. Every answer must be below 500 and a
 * Zulip envelope, none may take longer than the deadline, and the server must
 * still answer GET /users/me after each operation's batch. Deterministic:
 * FUZZ_SEED and FUZZ_BUDGET change the run when exploring.
 */
const SEED = Number(process.env['FUZZ_SEED'] ?? 20_251_121);
const BUDGET = Number(process.env['FUZZ_BUDGET'] ?? 4000);
const TIMEOUT_MS = 15_000;
const CONCURRENCY = 6;
// FUZZ_USER (e.g. iago@zulip.com, an administrator) reaches the checks behind permissions when exploring.
const MEMBER = process.env['FUZZ_USER'] ?? 'hamlet@zulip.com';

const test = anyTest as TestFn<{ server: TestServer; hamlet: ChatClient }>;

test.before(async (t) => {
  // Short heartbeats: a poll on a real queue must not count as a hang. Quick passivation: the
  // actors the hostile requests touched are saved and dropped during the run, then come back.
  // FUZZ_LOG=error shows the server's side of a failure when exploring.
  const logLevel = process.env['FUZZ_LOG'] ?? 'silent';
  t.context.server = await TestServer.start({ heartbeatMs: 2000, passivateAfterMs: 2000, logLevel });
  t.context.hamlet = await t.context.server.login(MEMBER);
});
test.after.always(async (t) => {
  await t.context.server?.stop();
});

/** Ids that exist, so that the parameters next to the hostile one pass and the handler runs. */
/** A reply that must succeed, for what the fuzzing needs ready. */
async function body<T>(reply: Promise<Reply<T>>): Promise<T> {
  const { status, body } = await reply;
  if (status !== 200) throw new Error(`preparing the fuzz run: ${status} ${JSON.stringify(body)}`);
  return body;
}

async function hintsFor(hamlet: ChatClient, othello: ChatClient, iago: ChatClient): Promise<Record<string, unknown>> {
  const denmark = await body(hamlet.get<{ stream_id: number }>('/get_stream_id', { stream: 'Denmark' }));
  const sent = await body(
    hamlet.post<{ id: number }>('/messages', { type: 'stream', to: 'Denmark', topic: 'fuzz', content: 'x' }),
  );
  const draft = { type: 'stream', to: [denmark.stream_id], topic: 'fuzz', content: 'draft' };
  const queue = await body(hamlet.post<{ queue_id: string }>('/register', { event_types: '["message"]' }));
  await body(hamlet.upload('/user_uploads', [{ name: 'fuzz.txt', data: Buffer.from('fuzz') }]));
  await body(hamlet.post('/navigation_views', { fragment: 'narrow/is/starred', is_pinned: 'true' }));
  return {
    stream_id: denmark.stream_id,
    user_id: (await body(othello.get<{ user_id: number }>('/users/me'))).user_id,
    user_id_or_email: 'othello@zulip.com',
    user_group_id: (await body(hamlet.get<{ user_groups: Array<{ id: number }> }>('/user_groups'))).user_groups[0]!.id,
    message_id: sent.id,
    draft_id: (await body(hamlet.post<{ ids: number[] }>('/drafts', { drafts: JSON.stringify([draft]) }))).ids[0],
    saved_snippet_id: (
      await body(hamlet.post<{ saved_snippet_id: number }>('/saved_snippets', { title: 't', content: 'c' }))
    ).saved_snippet_id,
    attachment_id: (await body(hamlet.get<{ attachments: Array<{ id: number }> }>('/attachments'))).attachments[0]!.id,
    channel_folder_id: (
      await body(iago.post<{ channel_folder_id: number }>('/channel_folders/create', { name: 'fuzz' }))
    ).channel_folder_id,
    fragment: 'narrow/is/starred',
    // A real queue, polled without waiting: hostile values reach the queue actor, not only the edge.
    queue_id: queue.queue_id,
    dont_block: true,
    type: 'stream',
    to: 'Denmark',
    topic: 'fuzz',
    content: 'fuzz',
    stream: 'Denmark',
    anchor: 'newest',
    username: MEMBER,
  };
}

test('every documented operation answers hostile input with an envelope below 500, and the server lives', async (t) => {
  t.timeout(10 * 60_000);
  const { server, hamlet } = t.context;
  const url = server.server.url;
  const doc = (await (await fetch(`${url}/api/v1/openapi.json`)).json()) as Record<string, unknown>;
  const iago = await server.login('iago@zulip.com');
  const hints = await hintsFor(hamlet, await server.login('othello@zulip.com'), iago);
  const memberId = (await body(hamlet.get<{ user_id: number }>('/users/me'))).user_id;
  const cases = fuzzCases(doc, { seed: SEED, hints, budget: BUDGET, memberEmail: MEMBER });
  const operations = [...new Set(cases.map((c) => c.operation))];
  // A document that lost its operations would make this test pass vacuously.
  t.true(operations.length >= 50, `only ${operations.length} operations in the document`);

  const started = Date.now();
  const answers: FuzzAnswer[] = [];
  const dead: string[] = [];
  const rekeyed: string[] = [];
  let member = hamlet;
  for (const operation of operations) {
    const batch = cases.filter((c: FuzzCase) => c.operation === operation);
    answers.push(...(await runPool(batch, CONCURRENCY, (c) => sendFuzz(url, c, member.credentials!, TIMEOUT_MS))));
    let alive = await member.get('/users/me').catch((err: Error) => ({ status: 0, body: err.message }));
    if (alive.status === 401 && (alive.body as { code?: string }).code === 'USER_DEACTIVATED') {
      // The operation deactivated the member's own account (DELETE /users/me): not a crash; reactivate.
      rekeyed.push(operation);
      await body(iago.post(`/users/${memberId}/reactivate`));
      alive = await member.get('/users/me');
    }
    if (alive.status === 401) {
      // The operation replaced the member's API key (regenerate): not a crash; log in again.
      rekeyed.push(operation);
      member = await server.login(MEMBER);
      alive = await member.get('/users/me');
    }
    if (alive.status !== 200)
      dead.push(`after ${operation}: GET /users/me ${alive.status} ${JSON.stringify(alive.body)}`);
  }
  const byStatus: Record<string, number> = {};
  for (const { status } of answers) byStatus[status] = (byStatus[status] ?? 0) + 1;
  const failures = answers.filter((a) => a.problem !== undefined);
  const serverErrors = answers.filter((a) => a.status >= 500).length;
  const hangs = answers.filter((a) => a.status === 0).length;
  const slowest = answers.reduce((a, b) => (b.ms > a.ms ? b : a));
  t.log(`seed ${SEED}: ${answers.length} requests over ${operations.length} operations in ${Date.now() - started} ms`);
  t.log(`by status: ${JSON.stringify(byStatus)}; ${serverErrors} server errors, ${hangs} without an answer`);
  t.log(`slowest: ${slowest.operation} (${slowest.label}) in ${slowest.ms} ms`);
  if (rekeyed.length > 0) t.log(`the member's API key was replaced or account deactivated by: ${rekeyed.join(', ')}`);
  t.deepEqual(dead, []);
  t.deepEqual(
    failures.slice(0, 40).map((f) => `${f.operation} [${f.label}]: ${f.problem}`),
    [],
    `${failures.length} failed answers`,
  );
});
