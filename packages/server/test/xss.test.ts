import { withServer, userId } from './context.js';
import { htmlProblems } from './html-safety.js';
import { next, register, take, type Event } from './queues.js';
import { ok, type Body } from './replies.js';

/**
 * Rendered HTML cannot carry script: what users write (message content,
 * channel and folder descriptions) and the names that end up inside
 * rendered mentions and links (full names, group, channel and topic names)
 * reach clients, read back through the API and through event queues, with
 * no script tag, no event handler attribute and no javascript:, vbscript: or
 * data: URL (html-safety.ts). Raw HTML is shown as text, as in the original.
 */
const test = withServer(['hamlet', 'othello', 'iago']);

// Full names may hold neither `>` nor `"` (as in the original); a channel link ends its name at `>`.
const EVIL_NAME = `<img src=x onerror=alert(1)>"'`;
const EVIL_PERSON = `<img src=x onerror=alert(1) 'x`;
const EVIL_CHANNEL = `<img src=x onerror=alert(1) 'c`;

const PAYLOADS = [
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  '<svg/onload=alert(1)>',
  '<a href="javascript:alert(1)">x</a>',
  '<iframe src="javascript:alert(1)"></iframe>',
  '<style>*{background:url(javascript:alert(1))}</style>',
  '<!-- <script>alert(1)</script> -->',
  '[x](javascript:alert(1))',
  '[x](JaVaScRiPt:alert(1))',
  '[x](&#106;avascript:alert(1))',
  '[x](javascript&#58;alert(1))',
  '[x](&#x6A;avascript:alert(1))',
  '[x](jav&#x09;ascript:alert(1))',
  '[x](<javascript:alert(1)>)',
  '[x](javascript://%0aalert(1))',
  '[x](vbscript:msgbox(1))',
  '[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
  '[x](data:,alert(1))',
  '![x](javascript:alert(1))',
  '![x](data:image/svg+xml,<svg onload=alert(1)>)',
  '<javascript:alert(1)>',
  'javascript:alert(1) and data:text/html,<script>alert(1)</script>',
  'https://example.com/"onmouseover="alert(1)',
  "https://example.com/'onmouseover='alert(1)",
  '[x](https://example.com "t\\" onmouseover=\\"alert(1)")',
  '[<img src=x onerror=alert(1)>](https://example.com)',
  '[<b onmouseover=alert(1)>](/user_uploads/2/ab/cd/x.png)',
  '[x](/user_uploads/2/ab/"><script>alert(1)</script>.png)',
  '```"><script>alert(1)</script>\ncode\n```',
  '```spoiler <img src=x onerror=alert(1)>\n<script>alert(1)</script>\n```',
  '```quote\n<script>alert(1)</script>\n```',
  '> <img src=x onerror=alert(1)>',
  '* <a href="javascript:alert(1)">item</a>',
  '| a |\n|---|\n| <script>alert(1)</script> |',
  '&lt;script&gt;alert(1)&lt;/script&gt; &#60;img src=x onerror=alert(1)&#62;',
  ':<script>: :smile" onerror="alert(1):',
  '`<script>alert(1)</script>`',
];
// Controls: rendering did happen, so an all-escaped output cannot pass by accident.
const CONTROL = '**bold** [safe](https://example.com/safe)';

const safe = (html: unknown) => htmlProblems(String(html));

test('the checker flags script, handlers and javascript: URLs, and passes what the renderer writes', (t) => {
  for (const bad of [
    '<script>alert(1)</script>',
    '<p><img src="x" onerror="alert(1)"></p>',
    '<a href="javascript:alert(1)">x</a>',
    '<a href="jav&#x09;ascript:alert(1)">x</a>',
    '<a href=" JAVASCRIPT:alert(1)">x</a>',
    '<img src="data:image/svg+xml,x">',
    '<svg onload=alert(1)>',
  ]) {
    t.notDeepEqual(htmlProblems(bad), [], bad);
  }
  t.deepEqual(htmlProblems('<p><strong>b</strong> <a href="https://example.com/?a=1&amp;b=2" title="x">y</a></p>'), []);
  t.deepEqual(htmlProblems('<p>&lt;script&gt; javascript:alert(1) onerror=x</p>'), []);
});

test('message content renders without script, handlers or unsafe URLs: fetched, single, rendered and as events', async (t) => {
  const { hamlet, othello } = t.context;
  const queue = await register(othello, { event_types: JSON.stringify(['message']), apply_markdown: 'true' });
  const topic = 'xss payloads';
  const sent = new Map<number, string>();
  for (const content of [CONTROL, ...PAYLOADS]) {
    const reply = await ok(hamlet, 'POST', '/messages', { type: 'stream', to: 'Verona', topic, content });
    sent.set(reply.id as number, content);
  }
  const narrow = [
    { operator: 'channel', operand: 'Verona' },
    { operator: 'topic', operand: topic },
  ];
  const fetched = await ok(othello, 'GET', '/messages', {
    anchor: 'newest',
    num_before: 100,
    num_after: 0,
    apply_markdown: 'true',
    narrow: JSON.stringify(narrow),
  });
  const contents = new Map((fetched.messages as Body[]).map((m) => [m.id as number, String(m.content)]));
  t.is(contents.size, sent.size);
  for (const [id, content] of sent) {
    t.deepEqual(safe(contents.get(id)), [], `GET /messages: ${content}`);
    const single = await ok(othello, 'GET', `/messages/${id}`, { apply_markdown: 'true' });
    t.deepEqual(safe((single.message as Body).content), [], `GET /messages/${id}: ${content}`);
    const rendered = await ok(hamlet, 'POST', '/messages/render', { content });
    t.deepEqual(safe(rendered.rendered), [], `POST /messages/render: ${content}`);
    const event = await next(queue, (e: Event) => e.type === 'message' && (e.message as Body).id === id);
    t.deepEqual(safe((event.message as Body).content), [], `message event: ${content}`);
  }
  const control = contents.get([...sent.keys()][0]!)!;
  t.regex(control, /<strong>bold<\/strong>/);
  t.regex(control, /<a href="https:\/\/example\.com\/safe">safe<\/a>/);
});

test('hostile names inside rendered mentions and channel links are escaped', async (t) => {
  const { hamlet, othello, iago } = t.context;
  await ok(hamlet, 'PATCH', '/settings', { full_name: EVIL_PERSON });
  await ok(iago, 'POST', '/user_groups/create', {
    name: EVIL_NAME,
    description: EVIL_NAME,
    members: JSON.stringify([await userId(othello)]),
  });
  await ok(iago, 'POST', '/users/me/subscriptions', {
    subscriptions: JSON.stringify([{ name: EVIL_CHANNEL }]),
    principals: JSON.stringify(['othello@zulip.com']),
  });
  const content = [
    `@**${EVIL_PERSON}** @_**${EVIL_PERSON}** @*${EVIL_NAME}*`,
    `#**${EVIL_CHANNEL}** #**${EVIL_CHANNEL}>${EVIL_NAME}** #**${EVIL_CHANNEL}>${EVIL_NAME}@1**`,
  ].join(' ');
  const { id } = await ok(othello, 'POST', '/messages', { type: 'stream', to: 'Verona', topic: EVIL_NAME, content });
  const { message } = await ok(othello, 'GET', `/messages/${id as number}`, { apply_markdown: 'true' });
  const html = String((message as Body).content);
  t.deepEqual(safe(html), [], html);
  // The names did resolve: a mention of Hamlet, of the group and a link to the channel.
  t.regex(html, new RegExp(`class="user-mention" data-user-id="${await userId(hamlet)}"`));
  t.regex(html, /class="user-group-mention"/);
  t.regex(html, /class="stream" data-stream-id="\d+"/);
  t.regex(html, /&lt;img src=x onerror=alert\(1\)&gt;/);
});

/** The one-line payloads in descriptions under the 1,024-character limit, all covered. */
function descriptions(): string[] {
  const chunks = [CONTROL];
  for (const payload of PAYLOADS.filter((p) => !p.includes('\n'))) {
    if (chunks.at(-1)!.length + payload.length + 1 > 1000) chunks.push(payload);
    else chunks[chunks.length - 1] += ` ${payload}`;
  }
  return chunks;
}

test('rendered channel and folder descriptions carry no script, on create, on update and in events', async (t) => {
  const { iago, othello } = t.context;
  const [first, ...more] = descriptions();
  const name = 'xss description';
  await ok(iago, 'POST', '/users/me/subscriptions', {
    subscriptions: JSON.stringify([{ name, description: first }]),
    principals: JSON.stringify(['othello@zulip.com']),
  });
  const { streams } = await ok(iago, 'GET', '/streams');
  const created = (streams as Body[]).find((s) => s.name === name)!;
  t.is(created.description, first);
  t.deepEqual(safe(created.rendered_description), []);
  t.regex(String(created.rendered_description), /<a href="https:\/\/example\.com\/safe">/);

  const queue = await register(othello, { event_types: JSON.stringify(['stream']) });
  for (const description of more) {
    await ok(iago, 'PATCH', `/streams/${created.stream_id as number}`, { description });
    const { stream } = await ok(othello, 'GET', `/streams/${created.stream_id as number}`);
    t.is((stream as Body).description, description);
    t.deepEqual(safe((stream as Body).rendered_description), []);
    const event = await take(queue, (e) => e.type === 'stream' && e.op === 'update' && e.property === 'description');
    t.is(event.value, description);
    t.deepEqual(safe(event.rendered_description), []);
  }

  for (const [i, description] of [first!, ...more].entries()) {
    await ok(iago, 'POST', '/channel_folders/create', { name: `xss folder ${i}`, description });
  }
  const { channel_folders } = await ok(iago, 'GET', '/channel_folders');
  const folders = (channel_folders as Body[]).filter((f) => String(f.name).startsWith('xss folder'));
  t.is(folders.length, more.length + 1);
  for (const folder of folders) t.deepEqual(safe(folder.rendered_description), []);
});

test('status text is stored and answered as the plain text it is, never as HTML', async (t) => {
  const { othello, hamlet } = t.context;
  const status_text = '<script>alert(1)</script>';
  await ok(othello, 'POST', '/users/me/status', { status_text });
  const { status } = await ok(hamlet, 'GET', `/users/${await userId(othello)}/status`);
  // Clients escape it as text, as they do in the original; no field offers it rendered.
  t.deepEqual(status, { status_text });
});
