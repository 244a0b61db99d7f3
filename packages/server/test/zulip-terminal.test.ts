import { execFile } from 'node:child_process';
import { chmod, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import anyTest, { type TestFn } from 'ava';
import { ChatClient, ServerProcess } from '@chat/testkit';
import { IDS } from './context.js';
import { MAIN, tempDir } from './support.js';
import { Tmux } from './tmux.js';

/**
 * zulip-terminal (PyPI zulip-term 0.7.0), the official terminal client,
 * driven in tmux as hamlet against a server started the README's way
 * (`main.js start`, the development organization). Each step waits for
 * the screen to show its result and checks it through the API as well.
 * scripts/zulip-term-env.sh installs tmux and zulip-term the first time.
 *
 * zulip-terminal 0.7.0 cannot start on an account without any message
 * ("Can't set focus, ListBox is empty", zulip/zulip-terminal#1561; the
 * original's new users always have a welcome message), so iago writes
 * first. Any traceback fails the test, but for the client's own startup
 * race (`onlyStartupRace`).
 */
type Context = { dir: string; server: ServerProcess; term: Tmux; hamlet: ChatClient; iago: ChatClient };
const test = anyTest as TestFn<Context>;

const ENV_SCRIPT = fileURLToPath(new URL('../../../../scripts/zulip-term-env.sh', import.meta.url));
let tools: { tmux: string; zulipTerm: string };
/** The client's session now: a test that restarts it changes its own copy of the context only. */
let running: Tmux | undefined;

type Message = {
  id: number;
  content: string;
  sender_id: number;
  subject: string;
  reactions: Array<{ emoji_name: string; user_id: number }>;
};

async function login(url: string, email: string): Promise<ChatClient> {
  const grant = await new ChatClient(url).post<{ api_key: string }>('/dev_fetch_api_key', { username: email });
  return new ChatClient(url, { email, apiKey: grant.body.api_key });
}

async function send(client: ChatClient, params: Record<string, unknown>): Promise<number> {
  const reply = await client.post<{ id: number }>('/messages', params);
  if (reply.status !== 200) throw new Error(`send: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.id;
}

async function search(client: ChatClient, words: string): Promise<Message[]> {
  const reply = await client.get<{ messages: Message[] }>('/messages', {
    anchor: 'newest',
    num_before: 20,
    num_after: 0,
    apply_markdown: false,
    narrow: JSON.stringify([{ operator: 'search', operand: words }]),
  });
  return reply.body.messages;
}

/** zulip-term in a fresh tmux session; its crash log and stderr land in the test's folder. */
async function startClient(t: { context: Context }): Promise<void> {
  const { dir } = t.context;
  const line = `cd '${dir}' && '${tools.zulipTerm}' -c '${join(dir, 'zuliprc')}' 2>>'${join(dir, 'stderr')}'; echo "ZT-EXITED $?"; sleep 3600`;
  t.context.term = running = await Tmux.start(tools.tmux, line);
  await t.context.term.waitFor(
    'the loaded client',
    (s) => s.includes('King Hamlet (hamlet@zulip.com)') && s.includes('# Verona'),
    60_000,
  );
}

/**
 * zulip-terminal 0.7.0's own startup race (zulip/zulip-terminal#391): its
 * presence thread may ask for a redraw between building the view and
 * starting the main loop; that thread dies with an AssertionError on
 * `_update_pipe` and the client goes on (its presence thread and its
 * user-list thread alike). Two threads' tracebacks may interleave on
 * stderr, even within a line, so they are recognised by counting: every
 * traceback is a thread's and ends in that assertion. Nothing else passes.
 */
function onlyStartupRace(stderr: string): boolean {
  const count = (pattern: RegExp) => (stderr.match(pattern) ?? []).length;
  // Counted anywhere on a line: two threads' headers can land on one line ("Exception in thread Exception in thread …").
  const threads = count(/Exception in thread /g);
  const errorLines = stderr.split('\n').filter((line) => /^\w*(Error|Exception)(:|$)/.test(line));
  return (
    count(/^Traceback/gm) === threads &&
    count(/assert hasattr\(self, "_update_pipe"\)/g) === threads &&
    errorLines.every((line) => line === 'AssertionError') &&
    errorLines.length === threads
  );
}

/** Whatever zulip-terminal reports as a crash: its traceback log, tracebacks on stderr or the screen. */
async function tracebacks(t: { context: Context }): Promise<string> {
  const { dir, term } = t.context;
  const read = (name: string) => readFile(join(dir, name), 'utf8').catch(() => '');
  const log = await read('zulip-terminal-tracebacks.log');
  if (log.trim() !== '') return log;
  const stderr = await read('stderr');
  if (/Traceback|has crashed/.test(stderr) && !onlyStartupRace(stderr)) return stderr;
  const screen = await term.screen();
  return /Traceback|has crashed/.test(screen) ? screen : '';
}

/**
 * Escape, then the screen it leads to. A terminal cannot tell Escape from
 * the start of a longer key (Alt-x), so the next key waits for the screen.
 */
async function escape(term: Tmux, what: string, ready: (screen: string) => boolean): Promise<void> {
  await term.keys('Escape');
  await term.waitFor(what, ready);
}

/** `/`, then the words once the cursor is in the search box, then Enter. */
async function searchFor(term: Tmux, words: string): Promise<void> {
  await term.keys('/');
  const deadline = Date.now() + 30_000;
  while (!(await term.cursorLine()).includes('Search [/]:')) {
    if (Date.now() > deadline) throw new Error(`the search box did not take the cursor:\n${await term.screen()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await term.type(words);
  await term.keys('Enter');
}

test.before(async (t) => {
  // The first run installs tmux and zulip-term (a minute); later runs reuse them.
  t.timeout(10 * 60_000);
  const dir = await tempDir('zulip-terminal');
  const server = new ServerProcess(['node', MAIN, 'start'], {
    PORT: '0',
    DATA_DIR: join(dir, 'data'),
    LOG_LEVEL: 'warn',
  });
  const [url, installed] = await Promise.all([
    server.start(60_000),
    promisify(execFile)('bash', [ENV_SCRIPT], { timeout: 10 * 60_000, maxBuffer: 16 << 20 }),
  ]);
  const [tmux, zulipTerm] = installed.stdout.trim().split('\n').slice(-2);
  tools = { tmux: tmux!, zulipTerm: zulipTerm! };
  const hamlet = await login(url, 'hamlet@zulip.com');
  const iago = await login(url, 'iago@zulip.com');
  Object.assign(t.context, { dir, server, hamlet, iago });
  await send(iago, {
    type: 'stream',
    to: 'Verona',
    topic: 'greetings',
    content: 'Welcome to Verona, said the zebrafinch',
  });
  await send(iago, { type: 'direct', to: JSON.stringify([IDS.hamlet]), content: 'A private welcome' });
  const rc = join(dir, 'zuliprc');
  await writeFile(rc, `[api]\nemail=hamlet@zulip.com\nkey=${hamlet.credentials!.apiKey}\nsite=${url}\n`);
  await chmod(rc, 0o600); // zulip-terminal refuses a zuliprc others can read
  await startClient(t);
});

test.after.always(async (t) => {
  await running?.stop();
  await t.context.server?.kill('SIGTERM');
  if (t.context.dir) await rm(t.context.dir, { recursive: true, force: true });
});

test.afterEach.always(async (t) => {
  if (t.context.term) t.is(await tracebacks(t), '', 'zulip-terminal reported an error');
});

test.serial('it starts and shows channels, topics and messages', async (t) => {
  const screen = await t.context.term.waitFor('the first messages', (s) => s.includes('A private welcome'));
  for (const shown of ['# Verona', '# Denmark', 'greetings', 'Welcome to Verona, said the zebrafinch', 'Iago']) {
    t.true(screen.includes(shown), shown);
  }
});

test.serial('c sends a channel message', async (t) => {
  const { term, iago } = t.context;
  await term.keys('c');
  await term.waitFor('the channel compose box', (s) => /│✗\s+▶/.test(s));
  await term.type('Verona');
  await term.keys('Tab');
  await term.waitFor('the channel chosen', (s) => /│# Verona\s+▶/.test(s));
  await term.type('zt topic');
  await term.keys('Tab');
  await term.type('sent from zulip-terminal');
  await term.keys('C-d');
  await term.waitFor('the sent message', (s) => /Verona ▶\s+zt topic/.test(s) && /▒ sent from zulip-terminal/.test(s));
  await escape(term, 'the compose box closed', (s) => !/│# Verona\s+▶/.test(s));
  const [found] = await search(iago, 'sent from zulip-terminal');
  t.like(found, { sender_id: IDS.hamlet, subject: 'zt topic', content: 'sent from zulip-terminal' });
});

test.serial('x sends a direct message', async (t) => {
  const { term, iago } = t.context;
  await term.keys('x');
  await term.waitFor('the direct compose box', (s) => s.includes('│To:'));
  await term.type('Iago <iago@zulip.com>');
  await term.keys('Tab');
  await term.type('direct from zulip-terminal');
  await term.keys('C-d');
  await term.waitFor('the sent direct message', (s) => /▒ direct from zulip-terminal/.test(s));
  await escape(term, 'the compose box closed', (s) => !s.includes('│To:'));
  const [found] = await search(iago, 'direct from zulip-terminal');
  t.like(found, { sender_id: IDS.hamlet, content: 'direct from zulip-terminal' });
});

test.serial('a message another user sends shows within seconds, through the event queue', async (t) => {
  const { term, iago } = t.context;
  await send(iago, { type: 'stream', to: 'Verona', topic: 'live', content: 'live from iago' });
  await term.waitFor('the live message', (s) => s.includes('▒ live from iago'), 10_000);
  t.pass();
});

test.serial('+ adds thumbs_up to the focused message', async (t) => {
  const { term, hamlet } = t.context;
  await term.keys('End', '+');
  await term.waitFor('the reaction', (s) => s.includes(':thumbs_up: You'));
  const [live] = await search(hamlet, 'live from iago');
  t.deepEqual(
    live!.reactions.map((r) => [r.emoji_name, r.user_id]),
    [['thumbs_up', IDS.hamlet]],
  );
});

test.serial('m mutes a channel', async (t) => {
  const { term, hamlet } = t.context;
  await term.keys('q');
  await term.type('Denmark');
  await term.keys('Enter', 'm');
  await term.waitFor('the confirmation', (s) => s.includes('Confirm muting of stream'));
  await term.keys('Enter');
  await term.waitFor('Denmark muted', (s) => /# Denmark\s+M/.test(s) && !s.includes('Confirm muting'));
  const { body } = await hamlet.get<{ subscriptions: Array<{ name: string; is_muted: boolean }> }>(
    '/users/me/subscriptions',
  );
  t.true(body.subscriptions.find((s) => s.name === 'Denmark')!.is_muted);
  await escape(term, 'the channel search cleared', (s) => !s.includes('Search Results'));
});

test.serial('/ search finds a known message, and i opens its information', async (t) => {
  const { term } = t.context;
  await searchFor(term, 'zebrafinch');
  await term.waitFor(
    'the search result',
    (s) => /Search Results/.test(s) && s.includes('▒ Welcome to Verona, said the zebrafinch'),
  );
  await term.keys('i');
  // The popup's rows may come a capture after its title (tmux reads the client's output as it is written).
  const info = await term.waitFor(
    "the message information with the sender's address",
    (s) => s.includes('Message Information') && s.includes("Sender's Email ID") && s.includes('iago@zulip.com'),
  );
  t.regex(info, /Sender's Email ID\s+iago@zulip\.com/);
  await escape(term, 'the information closed', (s) => !s.includes('Message Information'));
  await escape(term, 'all messages again', (s) => !s.includes('Search Results'));
});

test.serial('an edited message shows EDITED, and after a restart of the client too; the mute stays', async (t) => {
  const { term, hamlet } = t.context;
  await searchFor(term, 'sent from zulip-terminal');
  await term.waitFor('the own message', (s) => /Search Results/.test(s) && s.includes('▒ sent from zulip-terminal'));
  await term.keys('e');
  await term.waitFor('the edit box', (s) => /│sent from zulip-terminal\s+│/.test(s));
  await term.keys('End');
  await term.type(' and edited');
  await term.keys('C-d');
  await term.waitFor('EDITED', (s) => /EDITED ▒ sent from zulip-terminal and edited/.test(s));
  const [edited] = await search(hamlet, 'sent from zulip-terminal');
  t.is(edited!.content, 'sent from zulip-terminal and edited');

  await term.keys('C-c');
  await term.waitFor('the client to quit', (s) => s.includes('ZT-EXITED'));
  await term.stop();
  await startClient(t);
  const screen = await t.context.term.waitFor('the edited message after the restart', (s) =>
    s.includes('sent from zulip-terminal and edited'),
  );
  t.regex(screen, /EDITED ▒ sent from zulip-terminal and edited/);
  t.regex(screen, /# Denmark\s+M/);
});
