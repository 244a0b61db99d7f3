import test from 'ava';
import { ChatError, ENVELOPE_VERSION, type AskEnvelope } from '@chat/protocol';
import type { Decision, Fanout, Tell, TypedEvent } from '../src/index.js';
import { planDecision, planFailure, planIntake, type PlanFacts } from '../src/plan.js';

const NOW = 1_000_000;
const envelope = (changes: Partial<AskEnvelope> = {}): AskEnvelope => ({
  v: ENVELOPE_VERSION,
  kind: 'ask',
  to: { type: 'user', key: 'r:1' },
  body: { type: 'x' },
  deadline: NOW + 1000,
  ...changes,
});
const cache = new Map<string, unknown>([['seen', { id: 7 }]]);
const facts = (changes: Partial<PlanFacts> = {}): PlanFacts => ({
  eventVersion: 3,
  asked: true,
  holding: () => false,
  pendingReplies: 0,
  ...changes,
});
const added: TypedEvent = { type: 'added' };
const tell: Tell = { to: { type: 'queue', key: 'r:q' }, body: { type: 'queue.push', events: [] } };
const fanout: Fanout = { type: 'user', keys: ['r:1', 'r:2'], body: { type: 'user.deliver', events: [] } };
const plan = (decision: Decision<TypedEvent>, changes: Partial<PlanFacts> = {}) =>
  planDecision(decision, facts(changes));

test('a message whose deadline passed is refused now, without asking the behavior', (t) => {
  const answer = planIntake(envelope({ deadline: NOW - 1, idempotencyKey: 'seen' }), NOW, cache);
  t.is(answer?.when, 'now');
  t.false(answer?.reply.ok);
  t.like(answer?.reply, { error: { code: 'REQUEST_TIMEOUT' } });
});

test('a repeated idempotency key is answered from the cache, behind earlier replies', (t) => {
  t.deepEqual(planIntake(envelope({ idempotencyKey: 'seen' }), NOW, cache), {
    kind: 'answer',
    when: 'inOrder',
    reply: { v: ENVELOPE_VERSION, ok: true, body: { id: 7 } },
  });
});

test('a fresh message, or one with a new key, goes to the behavior', (t) => {
  t.is(planIntake(envelope(), NOW, cache), undefined);
  t.is(planIntake(envelope({ idempotencyKey: 'new', deadline: NOW }), NOW, cache), undefined);
});

test("a refusal is answered in order with the behavior's error; anything else as an internal error", (t) => {
  const refused = planFailure(new ChatError('BAD_REQUEST', 'No'));
  t.is(refused.when, 'inOrder');
  t.like(refused.reply, { ok: false, error: { code: 'BAD_REQUEST', msg: 'No' } });
  t.like(planFailure(new Error('bug')).reply, { ok: false, error: { code: 'INTERNAL_SERVER_ERROR' } });
});

test('a read with no earlier reply waiting is answered now', (t) => {
  t.deepEqual(plan({ reply: { n: 1 } }), {
    kind: 'change',
    when: 'now',
    soft: [],
    release: [],
    answer: 'reply',
    reply: { n: 1 },
  });
});

test('a read behind a reply still waiting is answered in order', (t) => {
  t.is(plan({ reply: 1 }, { pendingReplies: 1 }).when, 'inOrder');
});

test('a change is one journal record, answered once durable; what it tells is owed by the record', (t) => {
  const change = plan({ events: [added], reply: { id: 1 }, tells: [tell], fanouts: [fanout] }, { idempotencyKey: 'k' });
  t.is(change.when, 'inOrder');
  t.is(change.answer, 'reply');
  t.is(change.pass, undefined);
  t.deepEqual(change.entry, {
    rv: 1,
    ev: 3,
    events: [added],
    idem: 'k',
    reply: { id: 1 },
    out: [tell, fanout],
  });
});

test('a change without a key records no reply, and none without anything to tell', (t) => {
  t.deepEqual(plan({ events: [added], reply: 2 }).entry, { rv: 1, ev: 3, events: [added] });
});

test('a change without a reply still records null for a retry to get', (t) => {
  t.like(plan({ events: [added] }, { idempotencyKey: 'k' }).entry, { idem: 'k', reply: null });
});

test('soft events are applied without a record and answered now', (t) => {
  const soft = plan({ soft: [added], reply: null });
  t.deepEqual(soft.soft, [added]);
  t.is(soft.entry, undefined);
  t.is(soft.when, 'now');
});

test('tells of a decision that changed nothing go at most once when the message came without a key', (t) => {
  const once = plan({ tells: [tell], reply: 'ok' });
  t.deepEqual(once.pass, { how: 'once', out: [tell] });
  t.is(once.answer, 'reply');
  t.is(once.when, 'now');
});

test('an owed message passed on without a change is a relay: confirmed once what it passes on is', (t) => {
  const relay = plan({ fanouts: [fanout], reply: 'ok' }, { idempotencyKey: 'o:realm@5:0' });
  t.deepEqual(relay.pass, { how: 'relay', key: 'o:realm@5:0', out: [fanout] });
  t.is(relay.answer, 'relay');
  t.is(relay.entry, undefined);
});

test('a held reply is kept under its name; a timer or a tell cannot hold', (t) => {
  const held = plan({ hold: 'poll' });
  t.is(held.hold, 'poll');
  t.is(held.answer, 'held');
  const timer = plan({ hold: 'poll' }, { asked: false });
  t.is(timer.hold, undefined);
  t.is(timer.answer, 'none');
});

test('releases answer only the replies held now, in order, behind earlier replies still owed', (t) => {
  const holding = (name: string) => name !== 'gone';
  const released = plan(
    {
      release: [
        { name: 'a', reply: [1] },
        { name: 'gone', reply: [2] },
        { name: 'b', error: new ChatError('BAD_EVENT_QUEUE_ID', 'Bad event queue ID: b') },
      ],
      reply: null,
    },
    { holding, pendingReplies: 1 },
  );
  t.is(released.when, 'inOrder');
  t.deepEqual(
    released.release.map(({ name, answer }) => [name, answer.ok]),
    [
      ['a', true],
      ['b', false],
    ],
  );
  t.like(released.release[0]?.answer, { body: [1] });
  t.like(released.release[1]?.answer, { error: { code: 'BAD_EVENT_QUEUE_ID' } });
  t.is(plan({ release: [{ name: 'a' }] }, { holding }).when, 'now', 'nothing owed before it: answered now');
  t.is(plan({ release: [{ name: 'a' }], events: [added] }, { holding }).when, 'inOrder', 'behind its own record');
  t.is(plan({ release: [{ name: 'gone' }] }, { holding }).when, 'now');
});
