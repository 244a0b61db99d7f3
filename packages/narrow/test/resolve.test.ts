import test from 'ava';
import { namesIn, parseNarrow, resolveNarrow, resolveWith, type ResolvedTerm } from '../src/index.js';
import { ALICE, BOB, ME, VERONA, term, throwsBadRequest } from './fixtures.js';

const ids = {
  byEmail: new Map([
    ['alice@x.com', ALICE],
    ['bob@x.com', BOB],
    ['me@x.com', ME],
  ]),
  channelByName: new Map([['verona', VERONA]]),
};

test('namesIn lists the e-mails and channel names to look up, once each', (t) => {
  const channelTerms = parseNarrow([
    ['stream', 'Verona'],
    ['sender', 'alice@x.com'],
    { operator: 'channel', operand: 'Denmark', negated: true },
    { operator: 'channel', operand: 7, negated: true },
    { operator: 'sender', operand: 3 },
    ['topic', 'not-a-name'],
  ]);
  t.deepEqual(namesIn(channelTerms), { emails: ['alice@x.com'], channelNames: ['Verona', 'Denmark'] });
  const dmTerms = parseNarrow([
    ['dm', 'alice@x.com, bob@x.com'],
    ['dm-including', 'bob@x.com'],
    ['sender', 'carol@x.com'],
  ]);
  t.deepEqual(namesIn(dmTerms), { emails: ['alice@x.com', 'bob@x.com', 'carol@x.com'], channelNames: [] });
});

test('resolveNarrow replaces names with ids, case-insensitively', (t) => {
  const terms = parseNarrow([
    ['stream', 'Verona'],
    ['sender', 'Alice@X.com'],
    ['topic', 'lunch'],
  ]);
  t.deepEqual(resolveNarrow(terms, ids), [
    { operator: 'channel', operand: VERONA, negated: false },
    { operator: 'sender', operand: ALICE, negated: false },
    { operator: 'topic', operand: 'lunch', negated: false },
  ]);
  t.deepEqual(resolveNarrow(parseNarrow([['dm-including', 'BOB@x.com']]), ids), [
    { operator: 'dm-including', operand: BOB, negated: false },
  ]);
});

test('resolveNarrow turns a dm e-mail list into sorted unique ids', (t) => {
  const [resolved] = resolveNarrow(parseNarrow([['dm', 'bob@x.com,alice@x.com,bob@x.com']]), ids);
  t.deepEqual(resolved, { operator: 'dm', operand: [ALICE, BOB], negated: false });
});

test('resolveNarrow keeps numeric operands', (t) => {
  const terms = parseNarrow([
    { operator: 'channel', operand: 5 },
    { operator: 'dm', operand: [BOB, ALICE], negated: true },
  ]);
  t.deepEqual(
    resolveNarrow(terms, ids).map((x) => x.operand),
    [5, [ALICE, BOB]],
  );
});

test('resolveNarrow rejects unknown names with the original wording', (t) => {
  const cases: [unknown, string][] = [
    [['stream', 'Nowhere'], 'unknown channel Nowhere'],
    [['sender', 'ghost@x.com'], 'unknown user ghost@x.com'],
    [['dm-including', 'ghost@x.com'], 'unknown user ghost@x.com'],
    [['dm', 'alice@x.com,ghost@x.com'], 'unknown user in alice@x.com,ghost@x.com'],
  ];
  for (const [elem, desc] of cases) {
    throwsBadRequest(t, () => resolveNarrow(parseNarrow([elem]), ids), `Invalid narrow operator: ${desc}`);
  }
});

test('resolveNarrow checks numeric ids when given the known ids', (t) => {
  const strict = { ...ids, userIds: new Set([ALICE, BOB, ME]), channelIds: new Set([VERONA]) };
  const run = (elem: unknown) => () => resolveNarrow(parseNarrow([elem]), strict);
  throwsBadRequest(t, run({ operator: 'channel', operand: 9 }), 'Invalid narrow operator: unknown channel 9');
  throwsBadRequest(t, run({ operator: 'sender', operand: 99 }), 'Invalid narrow operator: unknown user 99');
  throwsBadRequest(
    t,
    run({ operator: 'dm', operand: [ALICE, 99] }),
    'Invalid narrow operator: unknown user in [11, 99]',
  );
  t.notThrows(run({ operator: 'dm', operand: [ALICE] }));
});

const withTerm = term({ operator: 'with', operand: 5 });

test('resolveWith replaces conversation terms with the channel message’s channel and topic', (t) => {
  const terms: ResolvedTerm[] = [
    withTerm,
    term({ operator: 'channel', operand: 1 }),
    term({ operator: 'topic', operand: 'old name' }),
    term({ operator: 'is', operand: 'unread' }),
  ];
  t.deepEqual(resolveWith(terms, { channel_id: VERONA, topic: 'new name', dm_user_ids: [] }), [
    term({ operator: 'channel', operand: VERONA }),
    term({ operator: 'topic', operand: 'new name' }),
    term({ operator: 'is', operand: 'unread' }),
  ]);
});

test('resolveWith narrows to a direct message’s participants', (t) => {
  const out = resolveWith([withTerm, term({ operator: 'dm', operand: [BOB] })], {
    channel_id: null,
    topic: '',
    dm_user_ids: [ME, ALICE],
  });
  t.deepEqual(out, [term({ operator: 'dm', operand: [ME, ALICE] })]);
});

test('resolveWith without an accessible message keeps terms that define a conversation', (t) => {
  const dm = [withTerm, term({ operator: 'dm', operand: [ALICE] })];
  t.deepEqual(resolveWith(dm, null), [term({ operator: 'dm', operand: [ALICE] })]);
  const topic = [withTerm, term({ operator: 'channel', operand: 1 }), term({ operator: 'topic', operand: 'x' })];
  t.is(resolveWith(topic, undefined).length, 2);
  throwsBadRequest(
    t,
    () => resolveWith([withTerm, term({ operator: 'channel', operand: 1 })], null),
    "Invalid narrow operator: Invalid 'with' operator",
  );
});

test('resolveWith leaves a narrow without `with` alone', (t) => {
  const terms = [term({ operator: 'is', operand: 'starred' })];
  t.is(resolveWith(terms, null), terms);
});
