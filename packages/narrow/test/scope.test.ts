import test from 'ava';
import { anchorOf, scopeOf } from '../src/index.js';
import { ALICE, BOB, ME, VERONA, term } from './fixtures.js';

test('no conversation terms: scope is everything', (t) => {
  t.deepEqual(scopeOf([], ME), { kind: 'all' });
  t.deepEqual(scopeOf([term({ operator: 'is', operand: 'starred' })], ME), { kind: 'all' });
});

test('a non-negated channel term scopes to the channel', (t) => {
  const terms = [term({ operator: 'channel', operand: VERONA }), term({ operator: 'topic', operand: 'x' })];
  t.deepEqual(scopeOf(terms, ME), { kind: 'channel', channelId: VERONA });
  t.deepEqual(scopeOf([term({ operator: 'channel', operand: VERONA, negated: true })], ME), { kind: 'all' });
});

test('a non-negated dm term scopes to the conversation, viewer included and sorted', (t) => {
  t.deepEqual(scopeOf([term({ operator: 'dm', operand: [BOB, ALICE] })], ME), {
    kind: 'dm',
    userIds: [ME, ALICE, BOB],
  });
  t.deepEqual(scopeOf([term({ operator: 'dm', operand: [ME] })], ME), { kind: 'dm', userIds: [ME] });
  t.deepEqual(scopeOf([term({ operator: 'dm', operand: [ALICE], negated: true })], ME), { kind: 'all' });
});

test('an id term scopes to that message', (t) => {
  const terms = [term({ operator: 'channel', operand: VERONA }), term({ operator: 'id', operand: 7 })];
  t.deepEqual(scopeOf(terms, ME), { kind: 'message', ids: [7] });
  t.deepEqual(scopeOf([term({ operator: 'id', operand: 7, negated: true })], ME), { kind: 'all' });
});

test('near and with do not narrow the scope', (t) => {
  t.deepEqual(scopeOf([term({ operator: 'near', operand: 7 })], ME), { kind: 'all' });
  t.deepEqual(scopeOf([term({ operator: 'with', operand: 7 })], ME), { kind: 'all' });
});

test('contradictory terms scope to no message at all', (t) => {
  const none = { kind: 'message', ids: [] };
  t.deepEqual(scopeOf([term({ operator: 'id', operand: 1 }), term({ operator: 'id', operand: 2 })], ME), none);
  t.deepEqual(
    scopeOf([term({ operator: 'channel', operand: 1 }), term({ operator: 'channel', operand: 2 })], ME),
    none,
  );
  t.deepEqual(
    scopeOf([term({ operator: 'dm', operand: [ALICE] }), term({ operator: 'dm', operand: [BOB] })], ME),
    none,
  );
  t.deepEqual(scopeOf([term({ operator: 'dm', operand: [] })], ME), none);
});

test('anchorOf prefers near, then id, then with, ignoring negated terms', (t) => {
  t.is(anchorOf([]), undefined);
  t.is(anchorOf([term({ operator: 'channel', operand: 1 })]), undefined);
  t.is(anchorOf([term({ operator: 'id', operand: 5 }), term({ operator: 'near', operand: 9 })]), 9);
  t.is(anchorOf([term({ operator: 'with', operand: 3 }), term({ operator: 'id', operand: 5 })]), 5);
  t.is(anchorOf([term({ operator: 'with', operand: 3 })]), 3);
  t.is(anchorOf([term({ operator: 'near', operand: 3, negated: true })]), undefined);
});
