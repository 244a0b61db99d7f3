import test from 'ava';
import { render } from '../src/index.js';
import { realm } from './fixtures.js';

const html = (content: string) => render(content, realm()).html;

test('> quotes', (t) => {
  t.is(
    html('> Hello World!\n\n> Hello Universe!'),
    '<blockquote>\n<p>Hello World!</p>\n</blockquote>\n<blockquote>\n<p>Hello Universe!</p>\n</blockquote>',
  );
});

test('a fenced quote holds Markdown', (t) => {
  t.is(
    html('Hamlet said:\n~~~ quote\nTo be or **not** to be.\n\nThat is the question\n~~~'),
    '<p>Hamlet said:</p>\n<blockquote>\n<p>To be or <strong>not</strong> to be.</p>\n<p>That is the question</p>\n</blockquote>',
  );
});

test('a code block inside a fenced quote does not end it', (t) => {
  t.is(
    html('```quote\nlook:\n~~~\ncode\n```\n~~~\nstill @**King Hamlet**\n```\nafter'),
    '<blockquote>\n<p>look:</p>\n<div class="codehilite"><pre><span></span><code>code\n```\n</code></pre></div>\n' +
      '<p>still <span class="user-mention" data-user-id="10">@King Hamlet</span></p>\n</blockquote>\n<p>after</p>',
  );
});

test('an unclosed fenced quote runs to the end', (t) => {
  t.is(html('```quote\nunclosed'), '<blockquote>\n<p>unclosed</p>\n</blockquote>');
});

test('a spoiler with a header', (t) => {
  t.is(
    html('```spoiler header\ncontent\n```\noutside spoiler\n'),
    '<div class="spoiler-block"><div class="spoiler-header">\n<p>header</p>\n</div>' +
      '<div class="spoiler-content" aria-hidden="true">\n<p>content</p>\n</div></div>\n<p>outside spoiler</p>',
  );
});

test('a spoiler without a header, and one whose header has Markdown', (t) => {
  t.is(
    html('```spoiler\ncontent\n```'),
    '<div class="spoiler-block"><div class="spoiler-header">\n</div>' +
      '<div class="spoiler-content" aria-hidden="true">\n<p>content</p>\n</div></div>',
  );
  t.is(
    html('```spoiler [Header](https://example.com) :smile:\n**content**\n```'),
    '<div class="spoiler-block"><div class="spoiler-header">\n<p><a href="https://example.com">Header</a> ' +
      '<span aria-label="smile" class="emoji emoji-1f604" role="img" title="smile">:smile:</span></p>\n</div>' +
      '<div class="spoiler-content" aria-hidden="true">\n<p><strong>content</strong></p>\n</div></div>',
  );
});

test('a spoiler inside a fenced quote', (t) => {
  t.is(
    html('~~~quote\n```spoiler header\ncontent\n```\noutside spoiler\n~~~\noutside quote'),
    '<blockquote>\n<div class="spoiler-block"><div class="spoiler-header">\n<p>header</p>\n</div>' +
      '<div class="spoiler-content" aria-hidden="true">\n<p>content</p>\n</div></div>\n<p>outside spoiler</p>\n' +
      '</blockquote>\n<p>outside quote</p>',
  );
});
