import test from 'ava';
import { isChatError } from '@chat/protocol';
import {
  Admission,
  classify,
  Limit,
  decide,
  DEFAULT_ADMISSION,
  SHED_FLOOR,
  slowRoute,
  MIN_ANSWERS,
  Quickest,
  type AdmissionSettings,
  type Load,
} from '../src/index.js';

const settings: AdmissionSettings = { ...DEFAULT_ADMISSION, maxInFlight: 4, maxQueued: 2, maxPolls: 3, maxLagMs: 50 };
const quiet: Load = { inFlight: 0, queued: 0, polls: 0, lagMs: 0 };

test('classify: GET /events (both prefixes) is a long poll, /metrics is exempt, the rest is work', (t) => {
  t.is(classify('GET', '/api/v1/events'), 'poll');
  t.is(classify('GET', '/json/events'), 'poll');
  t.is(classify('DELETE', '/api/v1/events'), 'work');
  t.is(classify('POST', '/api/v1/messages'), 'work');
  t.is(classify('POST', '/api/v1/register'), 'work');
  t.is(classify('GET', '/metrics'), 'exempt');
});

test('decide: work is admitted below the in-flight bound, waits above it, is refused when the line is full', (t) => {
  t.deepEqual(decide('work', quiet, settings), { verdict: 'admit' });
  t.deepEqual(decide('work', { ...quiet, inFlight: 3 }, settings), { verdict: 'admit' });
  t.deepEqual(decide('work', { ...quiet, inFlight: 4 }, settings), { verdict: 'wait' });
  t.deepEqual(decide('work', { ...quiet, inFlight: 4, queued: 1 }, settings), { verdict: 'wait' });
  t.deepEqual(decide('work', { ...quiet, inFlight: 4, queued: 2 }, settings), {
    verdict: 'refuse',
    reason: 'queue full',
  });
});

test('decide: nobody passes those already waiting, even when a slot looks free', (t) => {
  t.deepEqual(decide('work', { ...quiet, inFlight: 1, queued: 1 }, settings), { verdict: 'wait' });
});

const busy: Load = { ...quiet, inFlight: SHED_FLOOR };
const roomy = { ...settings, maxInFlight: 8 };

test('decide: a late event loop refuses new work at once, but not long polls', (t) => {
  const late = { ...busy, lagMs: 51 };
  t.deepEqual(decide('work', late, roomy), { verdict: 'refuse', reason: 'lag' });
  t.deepEqual(decide('work', { ...busy, lagMs: 50 }, roomy), { verdict: 'admit' });
  t.deepEqual(decide('poll', late, roomy), { verdict: 'admit' });
});

test('decide: lag and slowness do not refuse the few requests of a server with next to nothing in flight', (t) => {
  const few = { ...quiet, inFlight: SHED_FLOOR - 1, lagMs: 500, quickestMs: 500 };
  t.deepEqual(decide('work', few, { ...settings, targetMs: 30 }), { verdict: 'admit' });
});

test('decide: when even the quickest work of the last interval was slower than the target, work is refused', (t) => {
  const target = { ...roomy, targetMs: 30 };
  t.deepEqual(decide('work', { ...busy, quickestMs: 31 }, target), { verdict: 'refuse', reason: 'slow' });
  t.deepEqual(decide('work', { ...busy, quickestMs: 30 }, target), { verdict: 'admit' });
  t.deepEqual(decide('work', { ...busy, quickestMs: undefined }, target), { verdict: 'admit' });
  t.deepEqual(decide('poll', { ...busy, quickestMs: 500 }, target), { verdict: 'admit' });
  t.deepEqual(decide('work', { ...busy, quickestMs: 500 }, { ...target, targetMs: 0 }), { verdict: 'admit' });
});

test('decide: long polls have their own bound and never take a slot of work', (t) => {
  t.deepEqual(decide('poll', { ...quiet, inFlight: 4, queued: 2 }, settings), { verdict: 'admit' });
  t.deepEqual(decide('poll', { ...quiet, polls: 2 }, settings), { verdict: 'admit' });
  t.deepEqual(decide('poll', { ...quiet, polls: 3 }, settings), { verdict: 'refuse', reason: 'polls' });
  t.deepEqual(decide('work', { ...quiet, polls: 3 }, settings), { verdict: 'admit' });
});

test('decide: exempt requests and a bound of 0 (admission off) are always admitted', (t) => {
  const swamped = { inFlight: 1000, queued: 1000, polls: 1000, lagMs: 5000 };
  t.deepEqual(decide('exempt', swamped, settings), { verdict: 'admit' });
  t.deepEqual(decide('work', swamped, { ...settings, maxInFlight: 0 }), { verdict: 'admit' });
  t.deepEqual(decide('poll', swamped, { ...settings, maxInFlight: 0 }), { verdict: 'admit' });
});

/** Runs one request through the middleware; it holds its slot until `finish` is called. */
function request(admission: Admission, method = 'POST', path = '/api/v1/messages') {
  let finish!: () => void;
  const held = new Promise<void>((resolve) => (finish = resolve));
  const ctx = { method, path, state: {} as { deadline?: number } };
  let entered = false;
  const done = admission.middleware()(ctx as never, async () => {
    entered = true;
    await held;
  });
  return { ctx, done, finish, entered: () => entered };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

test('Admission: a waiter takes the slot freed first, and one who waits too long is refused 503 with retry-after', async (t) => {
  const admission = new Admission({ ...settings, maxInFlight: 1, maxWaitMs: 60_000 });
  const first = request(admission);
  const second = request(admission);
  await settle();
  t.true(first.entered());
  t.false(second.entered());
  t.like(admission.load, { inFlight: 1, queued: 1, polls: 0, lagMs: 0 });
  first.finish();
  await first.done;
  await settle();
  t.true(second.entered());
  t.like(admission.load, { inFlight: 1, queued: 0, polls: 0, lagMs: 0 });
  second.finish();
  await second.done;
  t.is(admission.load.inFlight, 0);

  const short = new Admission({ ...settings, maxInFlight: 1, maxWaitMs: 1 });
  const holder = request(short);
  const late = request(short);
  const err = await late.done.catch((e: unknown) => e);
  t.true(isChatError(err));
  if (isChatError(err)) {
    t.is(err.code, 'OVERLOADED');
    t.is(err.status, 503);
    t.is(err.extra['retry-after'], 1);
  }
  t.false(late.entered());
  t.is(short.stats.refused['waited too long'], 1);
  holder.finish();
  await holder.done;
  t.like(short.load, { inFlight: 0, queued: 0, polls: 0, lagMs: 0 });
});

test('Admission: refusals for lag and a full line come at once; polls are counted apart; deadlines are set', async (t) => {
  const lag = { lagMs: 0 };
  const admission = new Admission({ ...settings, maxInFlight: 1, maxQueued: 0 }, lag);
  const poll = request(admission, 'GET', '/api/v1/events');
  const work = request(admission);
  await settle();
  t.true(poll.entered());
  t.true(work.entered());
  t.like(admission.load, { inFlight: 1, queued: 0, polls: 1, lagMs: 0 });
  t.true(work.ctx.state.deadline! > Date.now());
  await t.throwsAsync(request(admission).done, { message: /overloaded/ });
  t.is(admission.stats.refused['queue full'], 1);
  work.finish();
  await work.done;
  poll.finish();
  await poll.done;
  t.like(admission.load, { inFlight: 0, queued: 0, polls: 0 });

  const wide = new Admission({ ...settings, maxInFlight: 8 }, lag);
  const held = Array.from({ length: SHED_FLOOR }, () => request(wide));
  lag.lagMs = 51;
  await t.throwsAsync(request(wide).done, { message: /overloaded/ });
  t.is(wide.stats.refused.lag, 1);
  for (const r of held) r.finish();
  await Promise.all(held.map((r) => r.done));
  t.like(wide.load, { inFlight: 0, lagMs: 51 });
});

test('slowRoute: a route is refused when its quickest answer is over the target and over twice its floor', (t) => {
  const target = { ...roomy, targetMs: 30 };
  const send = (quickestMs: number | undefined, floorMs: number | undefined) => ({ quickestMs, floorMs });
  t.true(slowRoute(send(31, 5), SHED_FLOOR, target));
  t.false(slowRoute(send(30, 5), SHED_FLOOR, target));
  // A registration costs 60 ms when nothing queues: held to 120 ms, not to the target.
  t.false(slowRoute(send(100, 60), SHED_FLOOR, target));
  t.true(slowRoute(send(121, 60), SHED_FLOOR, target));
  t.false(slowRoute(send(undefined, 5), SHED_FLOOR, target), 'no whole interval: no verdict');
  t.false(slowRoute(send(500, 5), SHED_FLOOR - 1, target), 'next to nothing in flight');
  t.false(slowRoute(send(500, 5), SHED_FLOOR, { ...target, targetMs: 0 }), 'turned off');
  t.false(slowRoute(send(500, 5), SHED_FLOOR, { ...target, maxInFlight: 0 }), 'admission off');
});

test('Quickest: the quickest of the last whole interval (MIN_ANSWERS at least), and the floor of all of them', (t) => {
  let now = 1000;
  const q = new Quickest(200, () => now);
  t.is(q.lastMs, undefined);
  for (const ms of [40, 12, 30, 25]) q.record(ms);
  t.is(q.lastMs, undefined, 'the interval is still under way');
  now += 200;
  t.is(q.lastMs, 12);
  t.is(q.floorMs, 12);
  for (const ms of [90, 80, 70]) q.record(ms);
  now += 200;
  t.is(q.lastMs, undefined, `fewer than ${MIN_ANSWERS} answers: no verdict`);
  for (const ms of [90, 80, 70, 60]) q.record(ms);
  now += 200;
  t.is(q.lastMs, 60);
  t.is(q.floorMs, 12, 'the floor is the quickest of every whole interval');
  for (const ms of [1, 1, 1, 1]) q.record(ms);
  now += 500;
  t.is(q.lastMs, undefined, 'an interval that ended long ago says nothing of now');
  t.is(q.floorMs, 12);
});

test('decide: under the bound, work beyond the limit is refused at once (never a lone request)', (t) => {
  const limited = { ...roomy, targetMs: 30 };
  t.deepEqual(decide('work', { ...busy, inFlight: 5, limit: 5 }, limited), { verdict: 'refuse', reason: 'limit' });
  t.deepEqual(decide('work', { ...busy, inFlight: 4, limit: 5 }, limited), { verdict: 'admit' });
  t.deepEqual(decide('work', { ...quiet, inFlight: SHED_FLOOR - 1, limit: 1 }, limited), { verdict: 'admit' });
  t.deepEqual(
    decide('work', { ...busy, inFlight: 8, limit: 8 }, limited),
    { verdict: 'wait' },
    'at the bound: a burst waits',
  );
  t.deepEqual(decide('poll', { ...busy, inFlight: 5, limit: 5 }, limited), { verdict: 'admit' });
});

test('Limit: cut by the median wait of an interval over the target (to half at most), raised by a quarter within it', (t) => {
  let now = 1000;
  const limit = new Limit(SHED_FLOOR, 64, 30, 200, () => now);
  const interval = (...waits: number[]) => {
    for (const ms of waits) limit.record(ms);
    now += 200;
    return limit.value;
  };
  t.is(limit.value, 64, 'a server that answers in time has the whole bound');
  t.is(interval(1, 2, 40, 5), 64, 'a median within the target at the bound stays there');
  t.is(interval(0, 60, 50, 45, 500), 38, 'median 50 ms: cut by 30/50');
  t.is(interval(300, 300, 300, 300), 19, 'cut to half at most');
  t.is(interval(300, 300, 300), 19, `fewer than ${MIN_ANSWERS} answers: no verdict`);
  for (let i = 0; i < 5; i++) interval(300, 300, 300, 300);
  t.is(limit.value, SHED_FLOOR, 'never under the floor');
  t.is(interval(10, 10, 10, 10), SHED_FLOOR + 1, 'one more at least');
  t.is(interval(10, 10, 10, 10), SHED_FLOOR + 2);
  for (let i = 0; i < 20; i++) interval(10, 10, 10, 10);
  t.is(limit.value, 64, 'raised by a quarter, up to the bound');
  for (const ms of [300, 300, 300, 300]) limit.record(ms);
  now += 500;
  t.is(limit.value, 64, 'an interval that ended long ago says nothing of now');
});

test('Admission: the limit starts at the bound and is off with the target or admission', (t) => {
  t.is(new Admission(roomy).load.limit, 8);
  t.is(new Admission({ ...roomy, targetMs: 0 }).load.limit, undefined);
  t.is(new Admission({ ...roomy, maxInFlight: 0 }).load.limit, undefined);
});
