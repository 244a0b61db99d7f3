import test from 'ava';
import {
  expandTemplate,
  linkifierPattern,
  render,
  templateVariables,
  topicLinks,
  type RenderLinkifier,
} from '../src/index.js';
import { realm } from './fixtures.js';

const trac: RenderLinkifier = { pattern: '#(?P<id>[0-9]{2,8})', url_template: 'https://trac.example.com/ticket/{id}' };
const html = (content: string, linkifiers: RenderLinkifier[] = [trac]) => render(content, realm({ linkifiers })).html;
const a = (id: string, text = `#${id}`) => `<a href="https://trac.example.com/ticket/${id}">${text}</a>`;

test('matches become links; a link written by hand is left alone', (t) => {
  t.is(
    html(
      'We should fix #224 #336 and #115, but not issue#124 or #1124z or [trac #15](https://trac.example.com/ticket/16) today.',
    ),
    `<p>We should fix ${a('224')} ${a('336')} and ${a('115')}, but not issue#124 or #1124z or ${a('16', 'trac #15')} today.</p>`,
  );
  t.true(render('see #123', realm({ linkifiers: [trac] })).hasLink);
  t.false(render('see #123', realm()).hasLink);
});

test('a match needs a space or an opening mark before it and no letter or digit after it', (t) => {
  const linked = (content: string) => html(content).includes('https://trac.example.com');
  for (const yes of [
    'Hello #123 World',
    'Hello\u00a0#123\u00a0World',
    'チケットは #123 です',
    '(#123)',
    '#123>',
    '"#123"',
    '#123@',
  ])
    t.true(linked(yes), yes);
  for (const no of ['Hello #123World', 'Hello#123 World', 'チケットは#123です', ')#123(', '##123'])
    t.false(linked(no), no);
});

test('code, links and mentions are not matched', (t) => {
  t.is(
    html('`#123` and\n\n    #456'),
    '<p><code>#123</code> and</p>\n<div class="codehilite"><pre><span></span><code>#456\n</code></pre></div>',
  );
  t.is(html('https://x.example/#123'), '<p><a href="https://x.example/#123">https://x.example/#123</a></p>');
  t.false(html('@**King Hamlet** #12').includes('ticket/10'));
});

test('linkifiers apply in the order given; what one linked, later ones leave alone', (t) => {
  const abc = { pattern: '(?P<id>ABC-[0-9]+)', url_template: 'https://trac.example.com/ticket/{id}' };
  const other = { pattern: '(?P<id>[A-Z][A-Z0-9]*-[0-9]+)', url_template: 'https://other.example.com/ticket/{id}' };
  t.is(
    html('ABC-123 and ASD-9', [abc, other]),
    '<p><a href="https://trac.example.com/ticket/ABC-123">ABC-123</a> and <a href="https://other.example.com/ticket/ASD-9">ASD-9</a></p>',
  );
  t.is(html('ABC-123', [other, abc]), '<p><a href="https://other.example.com/ticket/ABC-123">ABC-123</a></p>');
});

test('URL templates are expanded and escaped as RFC 6570 says; spaces in patterns work', (t) => {
  t.is(
    html('url-123 is well-escaped', [
      { pattern: 'url-(?P<id>[0-9]+)', url_template: 'https://example.com/A%20Test/%%%ba/{id}' },
    ]),
    '<p><a href="https://example.com/A%20Test/%25%25%ba/123">url-123</a> is well-escaped</p>',
  );
  t.is(
    html('please observe community guidelines here', [
      { pattern: 'community guidelines', url_template: 'https://zulip.com/development-community/#community-norms' },
    ]),
    '<p>please observe <a href="https://zulip.com/development-community/#community-norms">community guidelines</a> here</p>',
  );
  t.is(
    expandTemplate('https://x.example/{id}?q={+path}{&page}', { id: 'a b/c', path: 'a/b' }),
    'https://x.example/a%20b%2Fc?q=a/b',
  );
  t.deepEqual(templateVariables('https://x.example/{org}/{repo}/issues/{id}{?q,r}'), ['org', 'repo', 'id', 'q', 'r']);
  for (const bad of [
    'https://x.example/{id',
    'https://x.example/id}',
    'https://x.example/{i d}',
    'https://x.example/{=id}',
  ])
    t.is(templateVariables(bad), undefined, bad);
});

test('patterns RE2 refuses are refused in its words; an unsafe URL is not linked', (t) => {
  const refusal = (pattern: string) => t.throws(() => linkifierPattern(pattern))?.message;
  t.is(refusal('(?=a)b'), 'invalid perl operator: (?=');
  t.is(refusal('(a)\\1'), 'invalid escape sequence: \\1');
  t.is(refusal('ZUL-(?P<id>\\d'), 'missing ): ZUL-(?P<id>\\d');
  t.is(refusal('x**'), 'bad repetition operator: **');
  t.deepEqual(linkifierPattern('#(?P<id>[0-9]+)').namedGroups(), { id: 1 });
  t.is(html('x-1', [{ pattern: 'x-(?P<id>[0-9])', url_template: 'javascript:alert({id})' }]), '<p>x-1</p>');
});

test('a pattern that backtracks catastrophically in JavaScript matches in linear time', (t) => {
  const nested = { pattern: '(?P<id>(a+)+)b', url_template: 'https://x.example/{id}' };
  // JavaScript's RegExp takes about 2^n steps here (0.35 s at n = 24, doubling every two more: days at 60); RE2 a few thousand.
  const text = `${'a'.repeat(60)}!`;
  const started = Date.now();
  t.is(html(text, [nested]), `<p>${text}</p>`);
  t.is(html('aab', [nested]), '<p><a href="https://x.example/aa">aab</a></p>');
  t.true(Date.now() - started < 5000);
});

test('topic links: linkifier matches in the realm order, then raw URLs, where nothing earlier overlaps', (t) => {
  const link = (id: string) => ({ url: `https://trac.example.com/ticket/${id}`, text: `#${id}` });
  const google = { url: 'https://google.com', text: 'https://google.com' };
  t.deepEqual(topicLinks('#444 https://google.com', [trac]), [link('444'), google]);
  t.deepEqual(topicLinks('#111 https://google.com #111 #222', [trac]), [link('111'), google, link('111'), link('222')]);
  const hello = { pattern: 'hello#(?P<id>[0-9]+)', url_template: 'https://trac.example.com/hello/{id}' };
  t.deepEqual(topicLinks('hello#123 #234', [trac, hello]), [
    { url: 'https://trac.example.com/hello/123', text: 'hello#123' },
    link('234'),
  ]);
  const abc = { pattern: 'ABC-42', url_template: 'https://google.com' };
  const com = { pattern: 'com.+(?P<id>ABC\\-[0-9]+)', url_template: 'https://trac.example.com/ticket/{id}' };
  t.deepEqual(topicLinks('https://foo.com/ABC-123', [abc, com]), [
    { url: 'https://foo.com/ABC-123', text: 'https://foo.com/ABC-123' },
  ]);
  t.deepEqual(topicLinks('com https://foo.com/ABC-123', [abc, com]), [
    { url: 'https://trac.example.com/ticket/ABC-123', text: 'com https://foo.com/ABC-123' },
  ]);
  t.deepEqual(topicLinks('no links', []), []);
});
