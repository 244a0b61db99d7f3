import { rm } from 'node:fs/promises';
import test from 'ava';
import { ChatClient, ServerProcess } from '@chat/testkit';
import { classify, KINDS, Ledger, Register } from './crash-ledger.js';
import { verify } from './crash-verify.js';
import { Watcher } from './crash-watch.js';
import { prng, type Writer, type World } from './crash-world.js';
import { writeUntil } from './crash-writers.js';
import { ok } from './replies.js';
import { MAIN, tempDir } from './support.js';

/**
 * Data safety under kill -9: writers hammer a server process with every
 * kind of write, the process is killed with SIGKILL at a random moment,
 * restarted on the same data folder, and everything acknowledged is read
 * back (crash-verify.ts). CRASH_SEED replays a run's choices (the kill
 * timing itself depends on the machine).
 */
const ROUNDS = 15;
const WRITERS = ['hamlet', 'othello', 'cordelia', 'prospero', 'AARON', 'ZOE'];
const TOGGLES = ['crash-a', 'crash-b', 'crash-c'];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function setUp(url: string, seed: number): Promise<World> {
  const anonymous = new ChatClient(url);
  const writers: Writer[] = [];
  for (const name of WRITERS) {
    const email = `${name}@zulip.com`;
    const grant = await ok(anonymous, 'POST', '/dev_fetch_api_key', { username: email });
    writers.push({
      name,
      email,
      id: grant.user_id as number,
      apiKey: grant.api_key as string,
      language: new Register(),
      fullName: new Register(),
      status: new Register(),
      subscriptions: new Map(TOGGLES.map((t) => [t, new Register<boolean>()])),
      drafts: new Map(),
      seq: 0,
    });
  }
  const iago = new ChatClient(url, {
    email: 'iago@zulip.com',
    apiKey: (await ok(anonymous, 'POST', '/dev_fetch_api_key', { username: 'iago@zulip.com' })).api_key as string,
  });
  // The writers' channel has all of them; the others only Iago, for the writers to join and leave.
  const everyone = JSON.stringify(writers.map((w) => w.id));
  await ok(iago, 'POST', '/users/me/subscriptions', { subscriptions: '[{"name":"crash"}]', principals: everyone });
  // The notification bot's notice of the channel's creation is no writer's message: it goes.
  const narrow = JSON.stringify([{ operator: 'channel', operand: 'crash' }]);
  const notices = await ok(iago, 'GET', '/messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow });
  for (const m of notices.messages as Array<{ id: number }>) await ok(iago, 'DELETE', `/messages/${m.id}`);
  for (const name of TOGGLES)
    await ok(iago, 'POST', '/users/me/subscriptions', { subscriptions: `[{"name":"${name}"}]` });
  const idOf = async (name: string) => (await ok(iago, 'GET', '/get_stream_id', { stream: name })).stream_id as number;
  const toggles = new Map<string, number>();
  for (const name of TOGGLES) toggles.set(name, await idOf(name));
  return {
    ledger: new Ledger(),
    writers,
    channel: { name: 'crash', id: await idOf('crash') },
    toggles,
    rng: prng(seed),
    round: 0,
    refusals: new Map(),
  };
}

test('acknowledged writes survive kill -9 at random moments, whole and once', async (t) => {
  t.timeout(600_000);
  const seed = Number(process.env.CRASH_SEED ?? Date.now() % 1_000_000);
  t.log(`seed ${seed} (CRASH_SEED to replay)`);
  const dir = await tempDir('crash-loop');
  // Quick passivation and checkpoints, so that kills also land in those; no rate limits, which
  // would only thin the writes out.
  const server = new ServerProcess(['node', MAIN, 'start'], {
    PORT: '0',
    DATA_DIR: dir,
    LOG_LEVEL: 'warn',
    RATE_LIMITING: 'false',
    PASSIVATE_AFTER_MS: '300',
    CHECKPOINT_AFTER_MS: '400',
  });
  // Read by the teardown, which may run before it is set.
  let world: World | undefined;
  t.teardown(async () => {
    await server.kill('SIGKILL');
    // CRASH_KEEP keeps the data folder of a failed run, to inspect its journal and store.
    if (process.env.CRASH_KEEP && world?.ledger.violations.length) t.log(`data kept in ${dir}`);
    else await rm(dir, { recursive: true, force: true });
  });
  world = await setUp(await server.start(60_000), seed);
  await verify(world, server.url);
  // A client of hamlet's holds a queue throughout (crash-watch.ts).
  const watcher = new Watcher(world, world.writers[0]!);
  await watcher.register(server.url);
  const startedAt = Date.now();
  let unansweredAtKill = 0;

  for (world.round = 1; world.round <= ROUNDS; world.round++) {
    let stopped = false;
    const before = KINDS.reduce((sum, k) => sum + world.ledger.tally[k].unanswered, 0);
    const writing = world.writers.map((w) => writeUntil(world, w, server.url, () => stopped));
    watcher.start(server.url);
    await sleep(50 + Math.floor(world.rng() * 450));
    // No write starts after this: the ones under way now are in flight at the kill.
    stopped = true;
    await server.kill('SIGKILL');
    await Promise.all(writing);
    await watcher.stop();
    unansweredAtKill += KINDS.reduce((sum, k) => sum + world.ledger.tally[k].unanswered, 0) - before;
    await verify(world, await server.start(60_000));
    await watcher.afterKill(server.url);
  }
  // Finally writes, then a clean stop and start: a checkpoint written on the way down must agree too,
  // and the watcher's queue, saved at rest, goes on with every message acknowledged since it was registered.
  let stopped = false;
  const writing = world.writers.map((w) => writeUntil(world, w, server.url, () => stopped));
  watcher.start(server.url);
  await sleep(300);
  stopped = true;
  await Promise.all(writing);
  await server.stop();
  await watcher.stop();
  const url = await server.start(60_000);
  await watcher.afterStop(url);
  await verify(world, url);

  const { tally, violations } = world.ledger;
  t.log(`${ROUNDS} rounds in ${Math.round((Date.now() - startedAt) / 1000)} s`);
  for (const kind of KINDS) {
    const { acked, unanswered, refused } = tally[kind];
    t.log(`${kind}: ${acked} acknowledged, ${unanswered} unanswered at a kill, ${refused} refused`);
  }
  t.log(`writes in flight at kill time: ${unansweredAtKill}`);
  t.log(
    `watcher: queue gone after ${watcher.gone} of ${ROUNDS} kills, went on after ${watcher.continued} graceful restart; ${watcher.messages} message events taken`,
  );
  for (const [code, count] of world.refusals) t.log(`refused ${count}×: ${code}`);
  const byClass = new Map<string, number>();
  for (const v of violations) byClass.set(classify(v), (byClass.get(classify(v)) ?? 0) + 1);
  t.log(`violations: ${violations.length} (${[...byClass].map(([c, n]) => `${n} ${c}`).join(', ') || '0 lost'})`);
  for (const v of violations.slice(0, 30)) t.log(`  ${v}`);
  t.deepEqual(violations, []);
  t.is(watcher.gone, ROUNDS, 'after each kill -9 the queue is gone and the client registers again');
  t.is(watcher.continued, 1, 'after the graceful restart the queue goes on');
  t.true(
    KINDS.every((k) => tally[k].acked > 0),
    'every kind of write was acknowledged at least once',
  );
});
