import test from 'ava';
import { render } from '../src/index.js';
import { realm } from './fixtures.js';

test("a user mention shows the user's own name, matched case-insensitively", (t) => {
  const r = render('hi @**king hamlet**', realm());
  t.is(r.html, '<p>hi <span class="user-mention" data-user-id="10">@King Hamlet</span></p>');
  t.deepEqual(r.mentionedUserIds, [10]);
  t.deepEqual(r.silentUserIds, []);
});

test('a silent mention has the silent class, no @, and does not count as a mention', (t) => {
  const r = render('@_**King Hamlet**', realm());
  t.is(r.html, '<p><span class="user-mention silent" data-user-id="10">King Hamlet</span></p>');
  t.deepEqual(r.mentionedUserIds, []);
  t.deepEqual(r.silentUserIds, [10]);
});

test('a user both mentioned and silently mentioned is only a mention', (t) => {
  const r = render('@**King Hamlet** @_**King Hamlet** @_**Othello, the Moor of Venice**', realm());
  t.deepEqual(r.mentionedUserIds, [10]);
  t.deepEqual(r.silentUserIds, [11]);
});

test('the |id forms pick the user by id', (t) => {
  const r = render('@**Twin|22** @**|10** @**Whoever|21**', realm());
  t.is(
    r.html,
    '<p><span class="user-mention" data-user-id="22">@Twin</span> ' +
      '<span class="user-mention" data-user-id="10">@King Hamlet</span> ' +
      '<span class="user-mention" data-user-id="21">@Twin</span></p>',
  );
  t.deepEqual(r.mentionedUserIds, [10, 21, 22]);
});

test('a shared name without |id, an unknown name or an unknown id is no mention', (t) => {
  const r = render('@**Twin** @**Nobody** @**|999**', realm());
  t.is(r.html, '<p>@<strong>Twin</strong> @<strong>Nobody</strong> @<strong>|999</strong></p>');
  t.deepEqual(r.mentionedUserIds, []);
});

test('mentions need a boundary before them', (t) => {
  t.is(render('mail@**King Hamlet**', realm()).html, '<p>mail@<strong>King Hamlet</strong></p>');
  t.is(
    render('(@**King Hamlet**)', realm()).html,
    '<p>(<span class="user-mention" data-user-id="10">@King Hamlet</span>)</p>',
  );
});

test('channel wildcards, and their silent forms which raise no flag', (t) => {
  for (const name of ['all', 'everyone', 'channel', 'stream']) {
    const r = render(`@**${name}**`, realm());
    t.is(r.html, `<p><span class="user-mention channel-wildcard-mention" data-user-id="*">@${name}</span></p>`);
    t.true(r.channelWildcard);
    t.false(r.topicWildcard);
  }
  const quiet = render('@_**all**', realm());
  t.is(quiet.html, '<p><span class="user-mention channel-wildcard-mention silent" data-user-id="*">all</span></p>');
  t.false(quiet.channelWildcard);
});

test('the topic wildcard', (t) => {
  const r = render('@**topic**', realm());
  t.is(r.html, '<p><span class="topic-mention">@topic</span></p>');
  t.true(r.topicWildcard);
  t.false(r.channelWildcard);
  const quiet = render('@_**topic**', realm());
  t.is(quiet.html, '<p><span class="topic-mention silent">topic</span></p>');
  t.false(quiet.topicWildcard);
});

test('group mentions, silent ones not counted, unknown ones left as emphasis', (t) => {
  const r = render('@*Support Team* @_*support team* @*nope*', realm());
  t.is(
    r.html,
    '<p><span class="user-group-mention" data-user-group-id="5">@support team</span> ' +
      '<span class="user-group-mention silent" data-user-group-id="5">support team</span> @<em>nope</em></p>',
  );
  t.deepEqual(r.mentionedGroupIds, [5]);
  t.deepEqual(render('@_*support team*', realm()).mentionedGroupIds, []);
});

test('nothing in code is a mention', (t) => {
  const r = render('`@**King Hamlet** @**all** @*support team*`\n```\n@**King Hamlet** #**Verona**\n```', realm());
  t.is(
    r.html,
    '<p><code>@**King Hamlet** @**all** @*support team*</code></p>\n' +
      '<div class="codehilite"><pre><span></span><code>@**King Hamlet** #**Verona**\n</code></pre></div>',
  );
  t.deepEqual(r.mentionedUserIds, []);
  t.deepEqual(r.mentionedGroupIds, []);
  t.false(r.channelWildcard);
});
