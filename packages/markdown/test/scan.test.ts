import test from 'ava';
import { scan } from '../src/index.js';

test('scan lists every name and id the content refers to', (t) => {
  const q = scan(
    'hi @**King Hamlet**, @_**Twin**, @**Twin|22**, @**|10**, @*support team* @_*devs* ' +
      '#**Verona** #**Design team>lunch** #**Denmark>t@123**',
  );
  t.deepEqual(q, {
    userNames: ['King Hamlet', 'Twin'],
    userIds: [22, 10],
    groupNames: ['support team', 'devs'],
    channelNames: ['Verona', 'Design team', 'Denmark'],
  });
});

test('scan ignores wildcards, code, and mentions without a boundary', (t) => {
  t.deepEqual(scan('@**all** @**topic** `@**A**` x@**B**\n```\n@**C** #**D**\n```\n    @**E**'), {
    userNames: [],
    userIds: [],
    groupNames: [],
    channelNames: [],
  });
});

test('scan repeats nothing', (t) => {
  t.deepEqual(scan('@**A** @**A** @**|1** @**B|1**').userNames, ['A']);
  t.deepEqual(scan('@**A** @**A** @**|1** @**B|1**').userIds, [1]);
});
