import test from 'ava';
import { matches, TopicVisibility, type NarrowMessage, type ResolvedTerm } from '../src/index.js';
import { ALICE, BOB, DENMARK, ME, VERONA, channelMessage, directMessage, term } from './fixtures.js';

/** Asserts the term matches `yes` and not `no`, and that its negation does the opposite. */
function both(t: import('ava').ExecutionContext, x: ResolvedTerm, yes: NarrowMessage, no: NarrowMessage) {
  t.true(matches(yes, [x], ME), `${x.operator}:${String(x.operand)} should match`);
  t.false(matches(no, [x], ME), `${x.operator}:${String(x.operand)} should not match`);
  const negated = { ...x, negated: true } as ResolvedTerm;
  t.false(matches(yes, [negated], ME));
  t.true(matches(no, [negated], ME));
}

const dmWithAlice = directMessage([ALICE, ME]);
const groupDm = directMessage([ALICE, BOB, ME]);
const selfDm = directMessage([ME]);

test('an empty narrow matches everything', (t) => {
  t.true(matches(channelMessage(), [], ME));
  t.true(matches(dmWithAlice, [], ME));
});

test('channel', (t) => {
  both(t, term({ operator: 'channel', operand: VERONA }), channelMessage(), channelMessage({ channel_id: DENMARK }));
  t.false(matches(dmWithAlice, [term({ operator: 'channel', operand: VERONA })], ME));
});

test('channels:public and channels:web-public', (t) => {
  const priv = channelMessage({ channel_is_public: false });
  both(t, term({ operator: 'channels', operand: 'public' }), channelMessage(), priv);
  both(t, term({ operator: 'channels', operand: 'public' }), channelMessage(), dmWithAlice);
  const web = channelMessage({ channel_is_web_public: true });
  both(t, term({ operator: 'channels', operand: 'web-public' }), web, channelMessage());
});

test('topic compares case-insensitively and only matches channel messages', (t) => {
  both(t, term({ operator: 'topic', operand: 'LUNCH Plans' }), channelMessage(), channelMessage({ topic: 'lunch' }));
  t.false(matches(dmWithAlice, [term({ operator: 'topic', operand: '' })], ME));
});

test('topic "" matches the empty topic', (t) => {
  both(t, term({ operator: 'topic', operand: '' }), channelMessage({ topic: '' }), channelMessage());
});

test('dm names the exact set of participants, the viewer implied', (t) => {
  both(t, term({ operator: 'dm', operand: [ALICE] }), dmWithAlice, groupDm);
  both(t, term({ operator: 'dm', operand: [ALICE, BOB] }), groupDm, dmWithAlice);
  both(t, term({ operator: 'dm', operand: [ALICE, ME] }), dmWithAlice, selfDm);
  t.false(matches(channelMessage(), [term({ operator: 'dm', operand: [ALICE] })], ME));
});

test('dm with only one’s own id is the self conversation', (t) => {
  both(t, term({ operator: 'dm', operand: [ME] }), selfDm, dmWithAlice);
});

test('dm with an empty list matches nothing', (t) => {
  t.false(matches(selfDm, [term({ operator: 'dm', operand: [] })], ME));
  t.false(matches(dmWithAlice, [term({ operator: 'dm', operand: [] })], ME));
});

test('dm-including: the user is a participant; one’s own id means every direct message', (t) => {
  both(t, term({ operator: 'dm-including', operand: BOB }), groupDm, dmWithAlice);
  both(t, term({ operator: 'dm-including', operand: ALICE }), dmWithAlice, selfDm);
  both(t, term({ operator: 'dm-including', operand: ME }), selfDm, channelMessage());
});

test('sender', (t) => {
  both(t, term({ operator: 'sender', operand: ALICE }), channelMessage(), channelMessage({ sender_id: BOB }));
});

test('is:dm', (t) => {
  both(t, term({ operator: 'is', operand: 'dm' }), groupDm, channelMessage());
});

test('is:starred, is:unread and is:alerted read the viewer’s flags', (t) => {
  both(t, term({ operator: 'is', operand: 'starred' }), channelMessage({ flags: ['starred'] }), channelMessage());
  both(t, term({ operator: 'is', operand: 'unread' }), channelMessage({ flags: [] }), channelMessage());
  const alerted = channelMessage({ flags: ['has_alert_word'] });
  both(t, term({ operator: 'is', operand: 'alerted' }), alerted, channelMessage());
});

test('is:mentioned counts direct, wildcard and group mentions', (t) => {
  const x = term({ operator: 'is', operand: 'mentioned' });
  for (const flag of [
    'mentioned',
    'wildcard_mentioned',
    'stream_wildcard_mentioned',
    'topic_wildcard_mentioned',
    'group_mentioned',
  ]) {
    both(t, x, channelMessage({ flags: [flag] }), channelMessage({ flags: ['read', 'has_alert_word'] }));
  }
});

test('is:resolved is a topic starting with the check mark and a space', (t) => {
  const x = term({ operator: 'is', operand: 'resolved' });
  both(t, x, channelMessage({ topic: '✔ lunch plans' }), channelMessage({ topic: '✔lunch plans' }));
  t.false(matches(dmWithAlice, [x], ME));
});

test('is:followed is a followed topic', (t) => {
  const followed = channelMessage({ topic_visibility: TopicVisibility.FOLLOWED });
  both(t, term({ operator: 'is', operand: 'followed' }), followed, channelMessage());
});

test('is:muted: muted topics, and muted channels unless the topic is unmuted or followed', (t) => {
  const x = term({ operator: 'is', operand: 'muted' });
  both(t, x, channelMessage({ topic_visibility: TopicVisibility.MUTED }), channelMessage());
  both(t, x, channelMessage({ channel_muted: true }), channelMessage({ channel_muted: true, topic_visibility: 2 }));
  both(
    t,
    x,
    channelMessage({ channel_muted: true, topic_visibility: 0 }),
    channelMessage({ channel_muted: true, topic_visibility: 3 }),
  );
  both(t, x, channelMessage({ channel_muted: false, topic_visibility: 1 }), dmWithAlice);
});

test('in:home excludes muted conversations; in:all excludes nothing, even negated', (t) => {
  both(t, term({ operator: 'in', operand: 'home' }), channelMessage(), channelMessage({ channel_muted: true }));
  const all = term({ operator: 'in', operand: 'all' });
  t.true(matches(channelMessage({ channel_muted: true }), [all], ME));
  t.true(matches(channelMessage(), [{ ...all, negated: true }], ME));
});

test('has:link, attachment, image and reaction', (t) => {
  for (const what of ['link', 'attachment', 'image', 'reaction'] as const) {
    const yes = channelMessage({
      has: { link: false, attachment: false, image: false, reaction: false, [what]: true },
    });
    both(t, term({ operator: 'has', operand: what }), yes, channelMessage());
  }
});

test('id', (t) => {
  both(t, term({ operator: 'id', operand: 1 }), channelMessage(), channelMessage({ id: 2 }));
});

test('near filters nothing, negated or not', (t) => {
  const near = term({ operator: 'near', operand: 99 });
  t.true(matches(channelMessage(), [near], ME));
  t.true(matches(channelMessage(), [{ ...near, negated: true }], ME));
});

test('an unresolved with term is a caller bug', (t) => {
  t.throws(() => matches(channelMessage(), [term({ operator: 'with', operand: 1 })], ME), { message: /resolveWith/ });
});

test('all terms must match', (t) => {
  const terms = [term({ operator: 'channel', operand: VERONA }), term({ operator: 'sender', operand: BOB })];
  t.false(matches(channelMessage(), terms, ME));
  t.true(matches(channelMessage({ sender_id: BOB }), terms, ME));
});
