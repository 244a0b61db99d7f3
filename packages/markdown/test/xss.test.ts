import test from 'ava';
import { render, type RenderContext } from '../src/index.js';
import { realm } from './fixtures.js';

const HOSTILE = '"><img src=x onerror=alert(1)><script>alert(1)</script>\'';

/** A realm whose every name is hostile markup. */
function hostileRealm(): RenderContext {
  const user = { id: 66, full_name: HOSTILE };
  return realm({
    usersByName: new Map([[HOSTILE.toLowerCase(), [user]]]),
    usersById: new Map([[66, user]]),
    groupsByName: new Map([['evil', { id: 7, name: HOSTILE }]]),
    channelsByName: new Map([['evil', { id: 8, name: HOSTILE }]]),
    realmEmoji: new Map([
      ['quote', { id: '1', source_url: '/e/1.png" onerror="alert(1)' }],
      ['js', { id: '2', source_url: 'javascript:alert(1)' }],
    ]),
  });
}

const INPUTS = [
  '<script>alert(1)</script>',
  '<<script>script>evil()<</script>/script>',
  '<img src=x onerror=alert(1)>',
  '<a href="javascript:alert(1)">x</a>',
  '[x](javascript:alert(1))',
  '[x](JaVaScRiPt:alert(1))',
  '[x](javascript&#58;alert(1))',
  '[x](&#106;avascript:alert(1))',
  '[x](&#x6A;avascript:alert(1))',
  '[x](java&#x09;script:alert(1))',
  '[x](<java\tscript:alert(1)>)',
  '[x](<javascript :alert(1)>)',
  '[x](%20javascript:alert(1))',
  '[x](\\javascript:alert(1))',
  '[x](vbscript:msgbox(1))',
  '[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
  '[x](data:image/png;base64,iVBORw0KGgo=)',
  '![x](javascript:alert(1))',
  '<javascript:alert(1)>',
  'javascript:alert(1)',
  '[x](https://example.com "title\\" onerror=\\"alert(1)")',
  '[x](https://example.com/"onmouseover="alert(1))',
  '`<script>alert(1)</script>`',
  '```\n<script>alert(1)</script>\n```',
  '```spoiler <script>alert(1)</script>\n<img src=x onerror=alert(1)>\n```',
  '```"><script>alert(1)</script>\nx\n```',
  `@**${HOSTILE}**`,
  `@_**${HOSTILE}**`,
  '@**|66**',
  '@*evil*',
  '@_*evil*',
  '#**evil**',
  `#**evil>${HOSTILE}**`,
  `#**evil>${HOSTILE}@12**`,
  ':quote: :js:',
  `[${HOSTILE}](/user_uploads/2/ab/cd/x.png)`,
  '[x](/user_uploads/2/ab/cd/"onerror="alert(1).png)',
];

const TAGS = new Set(['p', 'br', 'a', 'span', 'div', 'pre', 'code', 'img', 'strong', 'em', 'del', 'blockquote']);
const ATTRIBUTES = new Set(['class', 'href', 'title', 'src', 'alt', 'role', 'aria-label', 'aria-hidden']);
const TAG = /<\/?([a-z][a-z0-9]*)((?:\s+[a-z-]+="[^"<>]*")*)\s*>/gy;
const ATTRIBUTE = /\s+([a-z-]+)="([^"]*)"/g;

const decode = (value: string) =>
  value.replace(/&#(x?)([0-9a-f]+);/gi, (_, hex: string, n: string) =>
    String.fromCodePoint(parseInt(n, hex ? 16 : 10)),
  );

/**
 * Reads the HTML as the browser would: every "<" must open a known tag whose
 * attributes are all quoted and known (no event handlers), and no href or src
 * may name a script-capable scheme. Hostile text may appear, escaped, as text.
 */
function problems(html: string): string[] {
  const found: string[] = [];
  if (/<script/i.test(html)) found.push('<script');
  let pos = 0;
  while ((pos = html.indexOf('<', pos)) >= 0) {
    TAG.lastIndex = pos;
    const tag = TAG.exec(html);
    if (!tag) {
      found.push(`malformed tag at ${pos}`);
      break;
    }
    if (!TAGS.has(tag[1]!)) found.push(`tag ${tag[1]}`);
    for (const [, name, value] of tag[2]!.matchAll(ATTRIBUTE)) {
      if (!ATTRIBUTES.has(name!) && !name!.startsWith('data-')) found.push(`attribute ${name}`);
      const target = decode(value!)
        .replace(/[\u0000-\u0020]/g, '')
        .toLowerCase();
      if ((name === 'href' || name === 'src') && /^(javascript|vbscript|data):/.test(target)) {
        found.push(`${name}=${value}`);
      }
      if (target.includes('javascript:')) found.push(`javascript: in ${name}`);
    }
    pos = TAG.lastIndex;
  }
  if (html.includes(HOSTILE)) found.push('unescaped hostile name');
  return found;
}

for (const input of INPUTS) {
  test(`inert: ${JSON.stringify(input)}`, (t) => {
    const { html } = render(input, hostileRealm());
    t.deepEqual(problems(html), [], html);
  });
}

test('the checker itself catches what it should', (t) => {
  t.deepEqual(problems('<p onclick="x">a</p>'), ['attribute onclick']);
  t.deepEqual(problems('<a href="jav&#x61;script:x">a</a>'), ['href=jav&#x61;script:x', 'javascript: in href']);
  t.deepEqual(problems('<p>a <b</p>'), ['malformed tag at 5']);
  t.deepEqual(problems('<p>&lt;script&gt; onerror=x</p>'), []);
});

test('hostile names are escaped in text and attributes', (t) => {
  const { html } = render(`@**${HOSTILE}** #**evil>a"b<c**`, hostileRealm());
  t.is(
    html,
    '<p><span class="user-mention" data-user-id="66">@"&gt;&lt;img src=x onerror=alert(1)&gt;&lt;script&gt;alert(1)&lt;/script&gt;\'</span> ' +
      '<a class="stream-topic" data-stream-id="8" href="/#narrow/channel/8-.22.3E.3Cimg-src.3Dx-onerror.3Dalert.281.29.3E.3Cscript.3Ealert.281.29.3C.2Fscript.3E.27/topic/a.22b.3Cc">' +
      '#"&gt;&lt;img src=x onerror=alert(1)&gt;&lt;script&gt;alert(1)&lt;/script&gt;\' &gt; a"b&lt;c</a></p>',
  );
});

test('a realm emoji with a script URL is not rendered; one with quotes in its URL is escaped', (t) => {
  t.is(
    render(':js: :quote:', hostileRealm()).html,
    '<p>:js: <img alt=":quote:" class="emoji" src="/e/1.png&quot; onerror=&quot;alert(1)" title="quote"></p>',
  );
});
