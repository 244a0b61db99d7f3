import test from 'ava';
import { render } from '../src/index.js';
import { realm } from './fixtures.js';

test('links and bare URLs become plain anchors and set hasLink', (t) => {
  const r = render('[hello](https://github.com) and www.zulip.com/foo ok?', realm());
  t.is(
    r.html,
    '<p><a href="https://github.com">hello</a> and <a href="http://www.zulip.com/foo">www.zulip.com/foo</a> ok?</p>',
  );
  t.true(r.hasLink);
  t.false(r.hasAttachment);
  t.false(render('no links here', realm()).hasLink);
});

test('an empty link shows its URL; an email address becomes a mailto link', (t) => {
  t.is(render('[  ](https://github.com)', realm()).html, '<p><a href="https://github.com">https://github.com</a></p>');
  t.is(render('<a@b.com>', realm()).html, '<p>&lt;<a href="mailto:a@b.com">a@b.com</a>&gt;</p>');
});

test('links with other schemes stay as the text written', (t) => {
  t.is(
    render('[call](tel:+1415) [x](javascript:alert(1))', realm()).html,
    '<p>[call](tel:+1415) [x](javascript:alert(1))</p>',
  );
});

test('image syntax does not embed: it is a link after a "!"', (t) => {
  t.is(render('![i](https://x.com/y.png)', realm()).html, '<p>!<a href="https://x.com/y.png">i</a></p>');
});

test('an uploaded file is an attachment', (t) => {
  const r = render('[doc.pdf](/user_uploads/2/ab/cdef/doc.pdf)', realm());
  t.is(r.html, '<p><a href="/user_uploads/2/ab/cdef/doc.pdf">doc.pdf</a></p>');
  t.true(r.hasAttachment);
  t.true(r.hasLink);
  t.false(r.hasImage);
  t.deepEqual(r.uploadPaths, ['2/ab/cdef/doc.pdf']);
});

test('an uploaded image is previewed after its paragraph', (t) => {
  const r = render('see [pic.png](/user_uploads/2/ab/cdef/pic.png)\nok', realm());
  t.is(
    r.html,
    '<p>see <a href="/user_uploads/2/ab/cdef/pic.png">pic.png</a><br>\nok</p>\n' +
      '<div class="message_inline_image"><a href="/user_uploads/2/ab/cdef/pic.png" title="pic.png">' +
      '<img src="/user_uploads/2/ab/cdef/pic.png"></a></div>',
  );
  t.true(r.hasImage);
  t.true(r.hasAttachment);
});

test('in a tight list the preview follows the link inside the item, once per image', (t) => {
  t.is(
    render('* a [p](/user_uploads/2/a/b/p.jpg) [p](/user_uploads/2/a/b/p.jpg)\n* b', realm()).html,
    '<ul>\n<li>a <a href="/user_uploads/2/a/b/p.jpg">p</a> <a href="/user_uploads/2/a/b/p.jpg">p</a>' +
      '<div class="message_inline_image"><a href="/user_uploads/2/a/b/p.jpg" title="p"><img src="/user_uploads/2/a/b/p.jpg"></a></div></li>\n' +
      '<li>b</li>\n</ul>',
  );
});

test('absolute upload links to any host count as attachments, decoded, without a preview', (t) => {
  const r = render('https://chat.example.com/user_uploads/2/xy/z/a%20b.png and /user_uploads/thumbnail/x.png', realm());
  t.deepEqual(r.uploadPaths, ['2/xy/z/a b.png']);
  t.true(r.hasAttachment);
  t.false(r.hasImage);
});

test('no previews inside quotes', (t) => {
  const r = render('> [a.png](/user_uploads/1/a/b/a.png)', realm());
  t.is(r.html, '<blockquote>\n<p><a href="/user_uploads/1/a/b/a.png">a.png</a></p>\n</blockquote>');
  t.false(r.hasImage);
});
