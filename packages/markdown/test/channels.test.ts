import test from 'ava';
import { render } from '../src/index.js';
import { realm } from './fixtures.js';

const html = (content: string) => render(content, realm()).html;

test('a channel link, with spaces as dashes in the slug', (t) => {
  t.is(html('#**Verona**'), '<p><a class="stream" data-stream-id="9" href="/#narrow/channel/9-Verona">#Verona</a></p>');
  t.is(
    html('#**design team**'),
    '<p><a class="stream" data-stream-id="12" href="/#narrow/channel/12-Design-team">#Design team</a></p>',
  );
});

test('a topic link hash-encodes the topic', (t) => {
  t.is(
    html('#**Verona>a.b% c**'),
    '<p><a class="stream-topic" data-stream-id="9" href="/#narrow/channel/9-Verona/topic/a.2Eb.25.20c">#Verona &gt; a.b% c</a></p>',
  );
});

test('a message link', (t) => {
  t.is(
    html('#**Verona>lunch@123**'),
    '<p><a class="message-link" href="/#narrow/channel/9-Verona/topic/lunch/near/123">#Verona &gt; lunch @ 💬</a></p>',
  );
});

test('unknown channels and links in code stay as written', (t) => {
  t.is(html('#**Nowhere** #**Nowhere>x**'), '<p>#<strong>Nowhere</strong> #<strong>Nowhere&gt;x</strong></p>');
  t.is(html('`#**Verona**`'), '<p><code>#**Verona**</code></p>');
});

test('channel links are not counted as links', (t) => {
  t.false(render('#**Verona**', realm()).hasLink);
});
