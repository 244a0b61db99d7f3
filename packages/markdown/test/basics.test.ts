import test from 'ava';
import { render } from '../src/index.js';
import { realm } from './fixtures.js';

const html = (content: string) => render(content, realm()).html;

test('a paragraph, with single newlines as line breaks and no trailing newline', (t) => {
  t.is(html('test_input'), '<p>test_input</p>');
  t.is(html('test\nbar'), '<p>test<br>\nbar</p>');
  t.is(html(''), '');
});

test('asterisk emphasis and ~~strikethrough~~ render; underscores stay literal', (t) => {
  t.is(
    html('*foo* **bar** I like ~~software~~'),
    '<p><em>foo</em> <strong>bar</strong> I like <del>software</del></p>',
  );
  t.is(html('_foo_ __bar__ snake_case_name'), '<p>_foo_ __bar__ snake_case_name</p>');
});

test('inline code keeps its content verbatim, escaping only markup characters', (t) => {
  t.is(html('`<&nbsp;>`'), '<p><code>&lt;&amp;nbsp;&gt;</code></p>');
  t.is(html('`"x"` and it\'s'), '<p><code>"x"</code> and it\'s</p>');
});

test('fenced code gets the codehilite wrapper and a language attribute only when named', (t) => {
  t.is(
    html('```\nfenced code\n```'),
    '<div class="codehilite"><pre><span></span><code>fenced code\n</code></pre></div>',
  );
  t.is(
    html('~~~~.python \ndef speak(self):\n    x = "1"\n~~~~'),
    '<div class="codehilite" data-code-language="Python"><pre><span></span><code>def speak(self):\n    x = &quot;1&quot;\n</code></pre></div>',
  );
  t.is(
    html('``` inventedlanguage\nx\n```'),
    '<div class="codehilite" data-code-language="inventedlanguage"><pre><span></span><code>x\n</code></pre></div>',
  );
});

test('code blocks drop trailing whitespace, and indented code is a code block too', (t) => {
  t.is(
    html('~~~\ny = 2\t\t\nz = 3   \n~~~'),
    '<div class="codehilite"><pre><span></span><code>y = 2\nz = 3\n</code></pre></div>',
  );
  t.is(
    html('    def foo(): pass'),
    '<div class="codehilite"><pre><span></span><code>def foo(): pass\n</code></pre></div>',
  );
});

test('a fence can follow a paragraph line directly', (t) => {
  t.is(
    html('Hamlet said:\n~~~~\nx = 1\n~~~~\nAnd all was good.'),
    '<p>Hamlet said:</p>\n<div class="codehilite"><pre><span></span><code>x = 1\n</code></pre></div>\n<p>And all was good.</p>',
  );
});

test('hash headings need a space; setext headings and reference links do not exist', (t) => {
  t.is(html('# Hello world'), '<h1>Hello world</h1>');
  t.is(html('#Hello world'), '<p>#Hello world</p>');
  t.is(html('Title\n==='), '<p>Title<br>\n===</p>');
  t.is(
    html('Hello [world]\n\n[world]: https://google.com'),
    '<p>Hello [world]</p>\n<p>[world]: <a href="https://google.com">https://google.com</a></p>',
  );
});

test('lists, including one hanging off a paragraph', (t) => {
  t.is(
    html('Some text:\n* One item\n* Two items'),
    '<p>Some text:</p>\n<ul>\n<li>One item</li>\n<li>Two items</li>\n</ul>',
  );
  t.is(html('3. A\n3. B'), '<ol start="3">\n<li>A</li>\n<li>B</li>\n</ol>');
});

test('entities are decoded and re-escaped', (t) => {
  t.is(html('& &amp; &amp;amp;'), '<p>&amp; &amp; &amp;amp;</p>');
});
