import test from 'ava';
import { jsonBody, RawBytes, RawJson } from '../src/raw-json.js';

const parsed = (body: Record<string, unknown> | Buffer) => JSON.parse((body as Buffer).toString('utf8')) as unknown;

test('a body without raw fields stays an object, for Koa to write', (t) => {
  const body = { result: 'success', msg: '', n: 1 };
  t.is(jsonBody(body), body);
});

test('raw text and raw bytes in pieces are written in place, as JSON.stringify would write their values', (t) => {
  const users = [{ full_name: 'Zoë 日本語' }, { full_name: 'Łukasz 😀' }];
  const text = JSON.stringify(users);
  const at = Buffer.byteLength(text.slice(0, text.indexOf('},{') + 1));
  const bytes = Buffer.from(text);
  const body = jsonBody({
    result: 'success',
    skipped: undefined,
    realm_users: new RawBytes(bytes.subarray(0, at), bytes.subarray(at)),
    events: new RawJson('[{"id":1}]'),
    empty: new RawBytes(Buffer.from('[]')),
  });
  t.true(Buffer.isBuffer(body));
  t.is(
    (body as Buffer).toString('utf8'),
    JSON.stringify({ result: 'success', realm_users: users, events: [{ id: 1 }], empty: [] }),
  );
  t.deepEqual(parsed(jsonBody({ first: new RawBytes(Buffer.from('1')), second: 2 })), { first: 1, second: 2 });
});
