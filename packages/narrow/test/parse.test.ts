import test from 'ava';
import { parseNarrow } from '../src/index.js';
import { throwsBadRequest } from './fixtures.js';

test('parses the object form, defaulting negated to false', (t) => {
  t.deepEqual(
    parseNarrow([
      { operator: 'channel', operand: 'Verona' },
      { operator: 'sender', operand: 'iago@zulip.com', negated: true },
      { operator: 'search', operand: 'cool sunglasses' },
    ]),
    [
      { operator: 'channel', operand: 'Verona', negated: false },
      { operator: 'sender', operand: 'iago@zulip.com', negated: true },
      { operator: 'search', operand: 'cool sunglasses', negated: false },
    ],
  );
});

test('parses legacy [operator, operand] pairs', (t) => {
  t.deepEqual(
    parseNarrow([
      ['stream', 'Verona'],
      ['topic', 'lunch'],
    ]),
    [
      { operator: 'channel', operand: 'Verona', negated: false },
      { operator: 'topic', operand: 'lunch', negated: false },
    ],
  );
});

test('an empty narrow is no terms', (t) => {
  t.deepEqual(parseNarrow([]), []);
});

test('canonicalizes legacy operator names and is:private', (t) => {
  const pairs = (raw: unknown[]) => parseNarrow(raw).map((x) => [x.operator, x.operand]);
  t.deepEqual(
    pairs([
      ['stream', 'a'],
      ['streams', 'public'],
      ['subject', 't'],
    ]),
    [
      ['channel', 'a'],
      ['channels', 'public'],
      ['topic', 't'],
    ],
  );
  t.deepEqual(pairs([['pm-with', 'a@x.com'], { operator: 'group-pm-with', operand: 5 }, ['is', 'private']]), [
    ['dm', 'a@x.com'],
    ['dm-including', 5],
    ['is', 'dm'],
  ]);
});

test('accepts the underscore spellings the original still accepts', (t) => {
  t.deepEqual(
    parseNarrow([['pm_with', 'a@x.com']]).map((x) => x.operator),
    ['dm'],
  );
  t.deepEqual(
    parseNarrow([['group_pm_with', 'a@x.com']]).map((x) => x.operator),
    ['dm-including'],
  );
});

test('ids: id, near and with take integers or digit strings', (t) => {
  t.deepEqual(
    parseNarrow([
      { operator: 'id', operand: 42 },
      { operator: 'near', operand: '43' },
    ]).map((x) => x.operand),
    [42, 43],
  );
  t.deepEqual(parseNarrow([{ operator: 'with', operand: '44' }])[0]?.operand, 44);
});

test('dm takes a list of ids (sorted, de-duplicated) or an e-mail string', (t) => {
  t.deepEqual(parseNarrow([{ operator: 'dm', operand: [12, 11, 12] }])[0]?.operand, [11, 12]);
  t.deepEqual(parseNarrow([{ operator: 'dm', operand: 'a@x.com,b@x.com' }])[0]?.operand, 'a@x.com,b@x.com');
});

test('channel, sender and dm-including take an id or a name', (t) => {
  const ops = parseNarrow([
    { operator: 'channel', operand: 7 },
    { operator: 'sender', operand: 8 },
    { operator: 'channel', operand: 'Verona', negated: true },
  ]).map((x) => x.operand);
  t.deepEqual(ops, [7, 8, 'Verona']);
  t.deepEqual(parseNarrow([{ operator: 'dm-including', operand: 'a@x.com' }])[0]?.operand, 'a@x.com');
});

test('every valid is, has, channels and in operand parses', (t) => {
  for (const v of ['dm', 'private', 'starred', 'mentioned', 'unread', 'resolved', 'alerted', 'followed', 'muted']) {
    t.notThrows(() => parseNarrow([['is', v]]));
  }
  for (const v of ['link', 'attachment', 'image', 'reaction']) t.notThrows(() => parseNarrow([['has', v]]));
  for (const v of ['public', 'web-public']) t.notThrows(() => parseNarrow([['channels', v]]));
  for (const v of ['home', 'all']) t.notThrows(() => parseNarrow([['in', v]]));
});

test('rejects a narrow that is not a list', (t) => {
  throwsBadRequest(t, () => parseNarrow({ operator: 'is', operand: 'dm' }), 'narrow is not a list');
});

test('rejects malformed elements with the element index', (t) => {
  throwsBadRequest(t, () => parseNarrow([[], []]), 'Invalid narrow[0]: Value error, element is not a string pair');
  throwsBadRequest(
    t,
    () => parseNarrow([['is', 'dm', 'x']]),
    'Invalid narrow[0]: Value error, element is not a string pair',
  );
  throwsBadRequest(
    t,
    () =>
      parseNarrow([
        ['is', 'dm'],
        ['id', 5],
      ]),
    'Invalid narrow[1]: Value error, element is not a string pair',
  );
  throwsBadRequest(t, () => parseNarrow(['asadasd']), 'Invalid narrow[0]: Value error, dict or list required');
  throwsBadRequest(t, () => parseNarrow([null]), 'Invalid narrow[0]: Value error, dict or list required');
  throwsBadRequest(
    t,
    () => parseNarrow([{ operator: null, operand: 'Verona' }]),
    'Invalid narrow[0]: Value error, operator is missing',
  );
  throwsBadRequest(
    t,
    () => parseNarrow([{ operator: 'stream' }]),
    'Invalid narrow[0]: Value error, operand is missing',
  );
});

test('rejects operands of the wrong type, worded like the original validators', (t) => {
  throwsBadRequest(t, () => parseNarrow([{ operator: 'has', operand: 1 }]), 'operand is not a string');
  throwsBadRequest(t, () => parseNarrow([{ operator: 'is', operand: ['dm'] }]), 'operand is not a string');
  throwsBadRequest(t, () => parseNarrow([{ operator: 'topic', operand: 3 }]), 'operand is not a string');
  throwsBadRequest(t, () => parseNarrow([{ operator: 'channel', operand: [1] }]), 'operand is not a string or integer');
  throwsBadRequest(t, () => parseNarrow([{ operator: 'sender', operand: 1.5 }]), 'operand is not a string or integer');
  throwsBadRequest(t, () => parseNarrow([{ operator: 'id', operand: true }]), 'operand is not a string or integer');
  throwsBadRequest(
    t,
    () => parseNarrow([{ operator: 'dm', operand: 5 }]),
    'operand is not a string or an integer list',
  );
  throwsBadRequest(t, () => parseNarrow([{ operator: 'dm', operand: [5, 'x'] }]), 'operand[1] is not an integer');
  throwsBadRequest(t, () => parseNarrow([{ operator: 'search', operand: '  ' }]), 'operand cannot be blank.');
  throwsBadRequest(t, () => parseNarrow([{ operator: 'search', operand: 3 }]), 'operand is not a string');
  throwsBadRequest(t, () => parseNarrow([{ operator: 7, operand: 'x' }]), 'operator is not a string');
  throwsBadRequest(
    t,
    () => parseNarrow([{ operator: 'is', operand: 'dm', negated: 'yes' }]),
    'negated is not a boolean',
  );
});

test('checks every element shape before any operator meaning', (t) => {
  // The unknown operator comes first, but the malformed second element is reported.
  throwsBadRequest(
    t,
    () =>
      parseNarrow([
        ['bogus', 'x'],
        [1, 2],
      ]),
    'Invalid narrow[1]: Value error, element is not a string pair',
  );
});

test('rejects unknown operators and operands with the original wording', (t) => {
  const cases: [unknown, string][] = [
    [['bogus', 'x'], 'unknown operator bogus'],
    [['is', 'flying'], "unknown 'is' operand flying"],
    [['has', 'video'], "unknown 'has' operand video"],
    [['channels', 'private'], 'unknown channels operand private'],
    [['streams', 'all'], 'unknown channels operand all'],
    [['in', 'nowhere'], "unknown 'in' operand nowhere"],
    [['id', 'abc'], 'Invalid message ID'],
    [{ operator: 'id', operand: -1 }, 'Invalid message ID'],
    [{ operator: 'id', operand: 2 ** 31 }, 'Invalid message ID'],
    [['near', '12a'], 'Invalid message ID'],
    [['with', 'abc'], "Invalid 'with' operator"],
  ];
  for (const [elem, desc] of cases) {
    const err = throwsBadRequest(t, () => parseNarrow([elem]), `Invalid narrow operator: ${desc}`);
    t.deepEqual(err?.extra, { desc });
  }
});

test('rejects a narrow that is both a channel and a direct-message narrow', (t) => {
  const msg = 'Invalid narrow operator: No message can be both a channel message and direct message';
  throwsBadRequest(
    t,
    () =>
      parseNarrow([
        ['channel', 'Verona'],
        ['is', 'dm'],
      ]),
    msg,
  );
  throwsBadRequest(
    t,
    () =>
      parseNarrow([
        ['topic', 'x'],
        ['dm', 'a@x.com'],
      ]),
    msg,
  );
  throwsBadRequest(
    t,
    () => parseNarrow([{ operator: 'is', operand: 'dm', negated: true }, ['dm-including', 'a@x.com']]),
    msg,
  );
  // Negated channel terms and dm terms can coexist.
  t.notThrows(() => parseNarrow([{ operator: 'channel', operand: 'Verona', negated: true }, ['is', 'dm']]));
  t.notThrows(() => parseNarrow([{ operator: 'dm', operand: [1], negated: true }, ['channel', 'Verona']]));
});

test('with: at most one, and its conversation terms may conflict until resolved', (t) => {
  throwsBadRequest(
    t,
    () =>
      parseNarrow([
        ['with', '1'],
        ['with', '2'],
      ]),
    "Invalid narrow operator combination: Duplicate 'with' operators.",
  );
  t.notThrows(() =>
    parseNarrow([
      ['with', '1'],
      ['channel', 'Verona'],
      ['dm', 'a@x.com'],
    ]),
  );
});
