import anyTest, { type ExecutionContext, type TestFn } from 'ava';
import {
  fuzzCases,
  runPool,
  sendFuzz,
  type ChatClient,
  type FuzzAnswer,
  type FuzzCase,
  type FuzzSession,
  type Reply,
} from '@chat/testkit';
import { TestServer } from './support.js';
import { Browser } from './browser.js';

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

type Context = { server: TestServer; hamlet: ChatClient };
const test = anyTest as TestFn<Context>;

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
async function hintsFor(hamlet: ChatClient, othello: ChatClient, iago: ChatClient): Promise<Record<string, unknown>> {
  const body = async <T>(reply: Promise<Reply<T>>): Promise<T> => {
    const { status, body } = await reply;
    if (status !== 200) throw new Error(`preparing the fuzz hints: ${status} ${JSON.stringify(body)}`);
    return body;
  };
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
    msg_type: 'widget',
    stream: 'Denmark',
    anchor: 'newest',
    username: MEMBER,
  };
}

let made: Promise<Record<string, unknown>> | undefined;

/** A member to fuzz as: API credentials, or a browser session for the /json forms; `renew` logs in again. */
interface Member {
  client: ChatClient;
  session?: FuzzSession;
}

async function fuzzRun(
  t: ExecutionContext<Context>,
  budget: number,
  login: () => Promise<Member>,
  alive: (m: Member) => Promise<{ status: number; body: unknown }>,
) {
  t.timeout(10 * 60_000);
  const { server } = t.context;
  const url = server.server.url;
  const doc = (await (await fetch(`${url}/api/v1/openapi.json`)).json()) as Record<string, unknown>;
  // Made once for both runs (the objects they name stay).
  const [hamlet, othello, iago] = await Promise.all(
    [MEMBER, 'othello@zulip.com', 'iago@zulip.com'].map((e) => server.login(e)),
  );
  const hints = await (made ??= hintsFor(hamlet!, othello!, iago!));
  const memberId = (await hamlet!.get<{ user_id: number }>('/users/me')).body.user_id;
  const cases = fuzzCases(doc, { seed: SEED, hints, budget, memberEmail: MEMBER });
  const operations = [...new Set(cases.map((c) => c.operation))];
  // A document that lost its operations would make this test pass vacuously.
  t.true(operations.length >= 50, `only ${operations.length} operations in the document`);

  const started = Date.now();
  const answers: FuzzAnswer[] = [];
  const dead: string[] = [];
  const rekeyed: string[] = [];
  let member = await login();
  for (const operation of operations) {
    const batch = cases.filter((c: FuzzCase) => c.operation === operation);
    const send = (c: FuzzCase) => sendFuzz(url, c, member.client.credentials!, TIMEOUT_MS, member.session);
    answers.push(...(await runPool(batch, CONCURRENCY, send)));
    let check = await alive(member).catch((err: Error) => ({ status: 0, body: err.message }));
    if (check.status === 401) {
      // The operation replaced the member's API key (regenerate) or ended the session (a new password): log in again.
      // One that deactivated the member's own account (DELETE /users/me): an administrator reactivates it first.
      rekeyed.push(operation);
      // (An active member's reactivation is refused, harmlessly.)
      await iago!.post(`/users/${memberId}/reactivate`);
      member = await login();
      check = await alive(member);
    }
    if (check.status !== 200)
      dead.push(`after ${operation}: GET /users/me ${check.status} ${JSON.stringify(check.body)}`);
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
  if (rekeyed.length > 0) t.log(`the member logged in again after: ${rekeyed.join(', ')}`);
  t.deepEqual(dead, []);
  t.deepEqual(
    failures.slice(0, 40).map((f) => `${f.operation} [${f.label}]: ${f.problem}`),
    [],
    `${failures.length} failed answers`,
  );
}

test.serial(
  'every documented operation answers hostile input with an envelope below 500, and the server lives',
  async (t) => {
    let first = true;
    const login = async () => {
      const client = first ? t.context.hamlet : await t.context.server.login(MEMBER);
      first = false;
      return { client };
    };
    await fuzzRun(t, BUDGET, login, (m) => m.client.get('/users/me'));
  },
);

test.serial(
  'the /json forms, called with a browser session and its CSRF token, answer hostile input the same way',
  async (t) => {
    const login = async (): Promise<Member> => {
      const browser = new Browser(t.context.server.client);
      await browser.send('POST', '/api/v1/dev_fetch_api_key', { username: MEMBER });
      const cookie = [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
      const client = await t.context.server.login(MEMBER);
      return { client, session: { cookie, csrfToken: browser.cookies.get('csrftoken')! } };
    };
    const alive = async (m: Member) => {
      const response = await fetch(`${t.context.server.server.url}/json/users/me`, {
        headers: { cookie: m.session!.cookie },
      });
      return { status: response.status, body: await response.text() };
    };
    await fuzzRun(t, Math.ceil(BUDGET / 4), login, alive);
  },
);
