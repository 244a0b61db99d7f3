import test from 'ava';
import { highlight, matches, type NarrowMessage } from '../src/index.js';
import { ME, channelMessage, directMessage, term } from './fixtures.js';

const search = (operand: string, negated = false) => term({ operator: 'search', operand, negated });
const finds = (m: NarrowMessage, operand: string) => matches(m, [search(operand)], ME);

const msg = channelMessage({
  topic: 'Weekend hiking',
  content: 'We walked along the **river bank** today, see https://example.com/trail',
  text: 'We walked along the river bank today, see https://example.com/trail',
  rendered:
    '<p>We walked along the <strong>river bank</strong> today, see <a href="https://example.com/trail">https://example.com/trail</a></p>',
});

test('search is case-insensitive and needs every word, in the text or the topic', (t) => {
  t.true(finds(msg, 'RIVER'));
  t.true(finds(msg, 'river weekend'));
  t.false(finds(msg, 'river lake'));
});

test('search matches whole words or word prefixes, not the middle of words', (t) => {
  t.true(finds(msg, 'riv'));
  t.false(finds(msg, 'iver'));
  t.false(finds(msg, 'ank'));
});

test('search tolerates simple inflections both ways', (t) => {
  t.true(finds(msg, 'walking'));
  t.true(finds(msg, 'walk'));
  t.true(finds(msg, 'banks'));
  t.true(finds(msg, 'hiked'));
});

test('quoted phrases must occur as phrases in the content or topic', (t) => {
  t.true(finds(msg, '"river bank"'));
  t.true(finds(msg, '"weekend hiking" river'));
  t.false(finds(msg, '"bank river"'));
  // The phrase's words must also be present, as the original also runs them through the full-text query.
  t.false(finds(channelMessage({ content: 'a-b', text: 'ab' }), '"a-b"'));
});

test('a search with no words matches nothing', (t) => {
  t.false(finds(msg, '!!!'));
});

test('search covers direct messages, whose topic is empty', (t) => {
  const dm = directMessage([ME], { content: 'note to self', text: 'note to self' });
  t.true(finds(dm, 'self'));
  t.false(finds(dm, 'hiking'));
});

test('search matches words in non-Latin scripts', (t) => {
  const m = channelMessage({ topic: 'Ünïcode', text: 'Привет мир' });
  t.true(finds(m, 'привет'));
  t.true(finds(m, 'ünïcode'));
});

test('negated search excludes messages containing the words', (t) => {
  t.false(matches(msg, [search('river', true)], ME));
  t.true(matches(msg, [search('lake', true)], ME));
});

test('highlight wraps matching words in text, never inside tags or attributes', (t) => {
  const out = highlight(msg, [search('river example trail')]);
  t.is(
    out.match_content,
    '<p>We walked along the <strong><span class="highlight">river</span> bank</strong> today, see ' +
      '<a href="https://example.com/trail">https://<span class="highlight">example</span>.com/' +
      '<span class="highlight">trail</span></a></p>',
  );
  t.is(out.match_subject, 'Weekend hiking');
});

test('highlight does not wrap keywords that are tag or attribute names', (t) => {
  const m = channelMessage({
    topic: 'x',
    rendered: '<p class="strong">a <strong title="p > strong">strong</strong> word</p>',
  });
  t.is(
    highlight(m, [search('strong class title')]).match_content,
    '<p class="strong">a <strong title="p > strong"><span class="highlight">strong</span></strong> word</p>',
  );
});

test('highlight marks inflected and prefix matches as whole words', (t) => {
  t.is(highlight(msg, [search('walk')]).match_content.includes('<span class="highlight">walked</span>'), true);
});

test('highlight escapes the topic and highlights within it safely', (t) => {
  const m = channelMessage({ topic: '<b>bold</b> & "quotes"', rendered: '<p>bold</p>' });
  t.deepEqual(highlight(m, [search('bold amp lt')]), {
    match_content: '<p><span class="highlight">bold</span></p>',
    match_subject: '&lt;b&gt;<span class="highlight">bold</span>&lt;/b&gt; &amp; &quot;quotes&quot;',
  });
});

test('without a search term, content is the rendered HTML and the subject the escaped topic', (t) => {
  const m = channelMessage({ topic: 'a <i>b</i>' });
  t.deepEqual(highlight(m, [term({ operator: 'channel', operand: 1 })]), {
    match_content: m.rendered,
    match_subject: 'a &lt;i&gt;b&lt;/i&gt;',
  });
});

test('highlight combines every search term and ignores negated ones', (t) => {
  const out = highlight(msg, [search('river'), search('bank'), search('today', true)]).match_content;
  t.true(out.includes('<span class="highlight">river</span> <span class="highlight">bank</span>'));
  t.false(out.includes('<span class="highlight">today</span>'));
});

test('highlight leaves entities and comments alone', (t) => {
  const m = channelMessage({ rendered: '<p>AT&amp;T <!-- amp --> amp</p>' });
  t.is(highlight(m, [search('amp')]).match_content, '<p>AT&amp;T <!-- amp --> <span class="highlight">amp</span></p>');
});
