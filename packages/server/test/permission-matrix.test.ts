import { isDeepStrictEqual } from 'node:util';
import anyTest, { type TestFn } from 'ava';
import { checkResponse, type Reply } from '@chat/testkit';
import { Fixtures } from './matrix-fixtures.js';
import {
  CALLER_ROLES,
  isDivergence,
  OK,
  type Caller,
  type Cell,
  type Operation,
  type Outcome,
  type Request,
} from './matrix-model.js';
import { OPERATIONS, RAW_ROUTES, SPEC_OPERATIONS } from './permission-cases.js';
import { TestServer } from './support.js';
import { UNCALLED_BIG_BLUE_BUTTON } from './calls-routes.js';
import { Browser } from './browser.js';

/**
 * The permission matrix: every operation the server serves, called by each
 * kind of caller (no credentials, a wrong key, a deactivated account, a bot,
 * a guest, a member, a moderator, an administrator, an owner, and the owner
 * of another realm), each answer compared with what the spec and the
 * reference say (permission-cases-*.ts cite the rule of each cell). Rows run
 * one after another, since their callers share the realm.
 *
 * The /json forms are sampled rather than doubled: in each row, one caller
 * who can hold a session (guest, member, moderator, administrator, owner,
 * taken in turn from row to row, so each kind gets about a fifth of the
 * rows) sends its request under /json with a session cookie and the CSRF
 * token instead of the API key, and must get the same cell; before that, a
 * write of that caller without the token must be refused (403 CSRF_FAILED).
 * Uploads and raw routes keep the /api/v1 form.
 */
const test = anyTest as TestFn<{ server: TestServer; fx: Fixtures }>;

test.before(async (t) => {
  t.context.server = await TestServer.start(UNCALLED_BIG_BLUE_BUTTON);
  t.context.fx = await Fixtures.make(t.context.server);
});
test.after.always(async (t) => {
  await t.context.server?.stop();
});

const operationOf = (op: Operation) => `${op.method} ${op.template}`;
const nameOf = (op: Operation) => (op.variant ? `${operationOf(op)} (${op.variant})` : operationOf(op));
const describe = (o: Outcome) => (o.status === 200 ? '200 success' : `${o.status} ${o.code ?? '(any code)'}`);
const quote = (o: Outcome) => (o.msg === undefined ? describe(o) : `${describe(o)} "${o.msg}"`);

const SESSION_ROLES = ['guest', 'member', 'moderator', 'administrator', 'owner'] as const;
/** How many cells went through /json, and how many writes were also tried without the token. */
const jsonSampled = { cells: 0, unguardedWrites: 0 };

/** The caller of row `index` whose cell goes through /json, if the row has one. */
function sessionRole(index: number, request: Request) {
  if (request.files || request.path.startsWith('//')) return undefined;
  return SESSION_ROLES[index % SESSION_ROLES.length];
}

/** A fresh session of `caller` (a development login), as a browser holds it. */
async function sessionOf(server: TestServer, caller: Caller): Promise<Browser> {
  const browser = new Browser(server.client);
  const login = await browser.send('POST', '/api/v1/dev_fetch_api_key', { username: caller.email! });
  if (login.status !== 200 || !browser.cookies.has('sessionid')) throw new Error(`no session for ${caller.email}`);
  return browser;
}

/** The request under /json, encoded as the API client encodes it, with the CSRF token unless `csrf` is false. */
async function sendJson(browser: Browser, op: Operation, request: Request, csrf: boolean): Promise<Reply> {
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(request.params ?? {})) {
    if (value !== undefined) form.set(name, typeof value === 'string' ? value : JSON.stringify(value));
  }
  const inQuery = op.method === 'GET' || op.method === 'DELETE';
  const query = inQuery && [...form].length > 0 ? `?${form}` : '';
  const token = browser.cookies.get('csrftoken');
  const headers: Record<string, string> = csrf && token ? { 'X-CSRFToken': token } : {};
  const body = inQuery ? undefined : Object.fromEntries(form);
  const reply = await browser.send(op.method, `/json${request.path}${query}`, body, headers);
  return { status: reply.status, headers: reply.headers, body: JSON.parse(reply.text) as Reply['body'] };
}

function send(caller: Caller, op: Operation, request: Request) {
  const params = request.params ?? {};
  if (!request.files) return caller.client.call<Record<string, unknown>>(op.method, request.path, params);
  return caller.client.upload(
    request.path,
    [request.file ?? { name: 'matrix.txt', data: Buffer.from('matrix') }],
    params,
  );
}

/** The fields of a reply that `want` speaks of, to compare as a whole. */
function observed(reply: Reply, want: Outcome): Outcome {
  const got: Outcome = { status: reply.status };
  if (want.code !== undefined) got.code = reply.body.code;
  if (want.msg !== undefined) got.msg = reply.body.msg;
  if (want.extra) got.extra = Object.fromEntries(Object.keys(want.extra).map((k) => [k, reply.body[k]]));
  return got;
}

/**
 * What is wrong with one cell's reply, if anything: its answer against the
 * cell (a divergence's `actual`), a success against the reference's schema,
 * a failure against the error envelope.
 */
function problems(op: Operation, path: string, cell: Cell, reply: Reply): string[] {
  const want = isDivergence(cell) ? cell.actual : cell;
  const got = observed(reply, want);
  const found: string[] = [];
  if (!isDeepStrictEqual(got, want)) {
    found.push(`wanted ${JSON.stringify(want)}, got ${reply.status} ${JSON.stringify(reply.body).slice(0, 300)}`);
  }
  if (reply.status === 200) {
    if (reply.body.result !== 'success') found.push('a 200 that is not a success');
    const check = checkResponse(op.method, path, 200, reply.body);
    // The deprecated settings aliases are not in the reference; everything else must fit it.
    if (!check.ok && !check.errors.some((e) => e.startsWith('the reference has no operation'))) {
      found.push(`does not fit the reference: ${check.errors.join('; ')}`);
    }
  } else if (
    reply.body.result !== 'error' ||
    typeof reply.body.msg !== 'string' ||
    typeof reply.body.code !== 'string'
  ) {
    found.push(`not an error envelope: ${JSON.stringify(reply.body)}`);
  }
  return found;
}

for (const [index, op] of OPERATIONS.entries()) {
  test.serial(nameOf(op), async (t) => {
    const { fx, server } = t.context;
    await op.prepare?.(fx);
    const wrong: string[] = [];
    for (const role of CALLER_ROLES) {
      const cell = op.expect[role];
      const request = await op.request(fx, fx.callers[role]);
      let reply: Reply;
      if (sessionRole(index, request) === role) {
        const browser = await sessionOf(server, fx.callers[role]);
        jsonSampled.cells++;
        // Operations anyone may call (logins) take no session, so no token either.
        if (op.method !== 'GET' && !isDeepStrictEqual(op.expect.anonymous, OK)) {
          jsonSampled.unguardedWrites++;
          const unguarded = await sendJson(browser, op, request, false);
          if (unguarded.status !== 403 || unguarded.body.code !== 'CSRF_FAILED') {
            wrong.push(
              `${role} /json without the CSRF token: got ${unguarded.status} ${JSON.stringify(unguarded.body)}`,
            );
          }
        }
        reply = await sendJson(browser, op, request, true);
        wrong.push(...problems(op, request.path, cell, reply).map((problem) => `${role} /json: ${problem}`));
      } else {
        reply = await send(fx.callers[role], op, request);
        wrong.push(...problems(op, request.path, cell, reply).map((problem) => `${role}: ${problem}`));
      }
      await op.after?.(fx, fx.callers[role], reply);
      if (isDivergence(cell)) {
        t.log(
          `known divergence, ${role}: expected ${quote(cell.expected)}; the server answers ${quote(cell.actual)}: ${cell.why}`,
        );
      }
    }
    t.deepEqual(wrong, []);
  });
}

test.serial('the matrix has a row for every operation the server serves and every one of the spec', async (t) => {
  const { body } = await t.context.server.client.get<{ paths: Record<string, Record<string, unknown>> }>(
    '//api/v1/openapi.json',
  );
  const served = Object.entries(body.paths).flatMap(([path, ops]) =>
    Object.keys(ops).map((method) => `${method.toUpperCase()} ${path.replace(/^\/api\/v1/, '')}`),
  );
  const rows = OPERATIONS.filter((op) => !op.variant).map(nameOf);
  t.deepEqual([...rows].sort(), [...served, ...RAW_ROUTES].sort());
  t.deepEqual(
    OPERATIONS.filter((op) => op.variant && !rows.includes(operationOf(op))).map(nameOf),
    [],
    'a variant is a further row of a served operation',
  );
  t.deepEqual(
    SPEC_OPERATIONS.filter((name) => !rows.includes(name)),
    [],
  );
  t.is(new Set(rows).size, rows.length, 'one row per operation (and variants)');
});

test.serial('the matrix in numbers', (t) => {
  const counts = new Map<string, number>();
  const bump = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
  let divergences = 0;
  for (const op of OPERATIONS) {
    for (const role of CALLER_ROLES) {
      const cell = op.expect[role];
      bump(describe(isDivergence(cell) ? cell.expected : cell));
      if (isDivergence(cell)) divergences++;
    }
  }
  const cells = OPERATIONS.length * CALLER_ROLES.length;
  t.log(`${OPERATIONS.length} operations × ${CALLER_ROLES.length} callers = ${cells} cells`);
  for (const [outcome, n] of [...counts].sort((a, b) => b[1] - a[1])) t.log(`  ${outcome}: ${n}`);
  t.log(`  of which known divergences (the server answers otherwise): ${divergences}`);
  t.log(
    `  sent under /json with a session: ${jsonSampled.cells} (writes also refused without the token: ${jsonSampled.unguardedWrites})`,
  );
  const unset = OPERATIONS.flatMap((op) =>
    CALLER_ROLES.filter((role) => !op.expect[role]).map((r) => `${nameOf(op)} ${r}`),
  );
  t.deepEqual(unset, [], 'every cell states its answer');
});
