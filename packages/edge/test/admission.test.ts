import test from 'ava';
import { isChatError } from '@chat/protocol';
import {
  Admission,
  classify,
  decide,
  DEFAULT_ADMISSION,
  SHED_FLOOR,
  slowRoute,
  type AdmissionSettings,
  type EdgeState,
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

test('decide: lag does not refuse the few requests of a server with next to nothing in flight', (t) => {
  const few = { ...quiet, inFlight: SHED_FLOOR - 1, lagMs: 500 };
  t.deepEqual(decide('work', few, settings), { verdict: 'admit' });
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

test('slowRoute: a route is refused while its oldest request in flight waited over the target and twice its floor', (t) => {
  const target = { ...roomy, targetMs: 50 };
  const send = (oldestMs: number | undefined, floorMs: number | undefined) => ({ oldestMs, floorMs });
  t.true(slowRoute(send(51, 5), SHED_FLOOR, target));
  t.false(slowRoute(send(50, 5), SHED_FLOOR, target));
  t.false(slowRoute(send(500, undefined), SHED_FLOOR, { ...target, targetMs: 0 }), 'turned off');
  // A registration costs 60 ms when nothing queues: held to 120 ms, not to the target.
  t.false(slowRoute(send(100, 60), SHED_FLOOR, target));
  t.true(slowRoute(send(121, 60), SHED_FLOOR, target));
  t.true(slowRoute(send(51, undefined), SHED_FLOOR, target), 'no answer yet: held to the target');
  t.false(slowRoute(send(undefined, 5), SHED_FLOOR, target), 'none of the route in flight');
  t.false(slowRoute(send(500, 5), SHED_FLOOR - 1, target), 'next to nothing in flight');
  t.false(slowRoute(send(500, 5), SHED_FLOOR, { ...target, maxInFlight: 0 }), 'admission off');
});

test('Admission: a route whose oldest request waits past the target is refused at once; other routes and polls are not', async (t) => {
  const admission = new Admission({ ...roomy, targetMs: 50 });
  const routed = (route: string, method = 'POST', path = '/api/v1/messages') => {
    let finish!: () => void;
    const held = new Promise<void>((resolve) => (finish = resolve));
    const ctx = { method, path, state: {} as EdgeState };
    const done = admission.middleware()(ctx as never, async () => {
      admission.admitRoute(route, ctx.state);
      await held;
    });
    return { done, finish };
  };
  const sends = Array.from({ length: SHED_FLOOR }, () => routed('/api/v1/messages'));
  await settle();
  t.true(admission.oldestMs >= 0);
  await new Promise((resolve) => setTimeout(resolve, 80));
  t.true(admission.oldestMs > 50);
  await t.throwsAsync(routed('/api/v1/messages').done, { message: /overloaded/ });
  t.is(admission.stats.refused['slow route'], 1);
  const other = routed('/api/v1/users/me/presence');
  const poll = routed('/api/v1/events', 'GET', '/api/v1/events');
  await settle();
  other.finish();
  poll.finish();
  await Promise.all([other.done, poll.done]);
  for (const send of sends) send.finish();
  await Promise.all(sends.map((s) => s.done));
  t.is(admission.oldestMs, 0);
  // Answered: the route is taken again (its floor is now the ~80 ms its requests took, held to twice that).
  const next = routed('/api/v1/messages');
  await settle();
  next.finish();
  await next.done;
  t.is(admission.stats.refused['slow route'], 1);
});
