import test from 'ava';
import { requestUuid } from '../src/request-id.js';
import { requestIdOf } from '../src/observe.js';

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

test('request ids are random version 4 UUIDs, none repeated across refills of the random bytes', (t) => {
  const ids = Array.from({ length: 10_000 }, () => requestUuid());
  for (const id of ids) if (!V4.test(id)) t.fail(`not a version 4 UUID: ${id}`);
  t.is(new Set(ids).size, ids.length);
  // Every hex digit shows up in every free position: the bytes are random, not a counter.
  for (const at of [0, 9, 15, 20, 35]) t.is(new Set(ids.map((id) => id[at])).size, 16, `position ${at}`);
});

test("a caller's sane request id is kept, anything else gets a UUID", (t) => {
  t.is(requestIdOf('abc_DEF-123'), 'abc_DEF-123');
  t.regex(requestIdOf('has space'), V4);
  t.regex(requestIdOf(undefined), V4);
});
