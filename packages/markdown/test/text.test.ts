import test from 'ava';
import { htmlToText, render } from '../src/index.js';
import { realm } from './fixtures.js';

test('htmlToText strips tags and decodes entities', (t) => {
  t.is(htmlToText('<p>a &amp; b &lt;c&gt; &quot;d&quot; &#39;e&#39; &#x1F600;</p>'), 'a & b <c> "d" \'e\' \u{1F600}');
});

test('htmlToText reads emoji as their characters and mentions as their text', (t) => {
  const { html } = render('hi @**King Hamlet** :smile: :parrot:\n**bold** `<code>`', realm());
  t.is(htmlToText(html), 'hi @King Hamlet \u{1F604} :parrot:\nbold <code>');
});
